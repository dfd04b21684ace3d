"""`screenshot`: the tab (or one element, or the whole page), downscaled; returned in `outputs`."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from msgspec import Meta

from ...wire.messages import Screenshot
from ..context import Context
from .base import StepBase


class ScreenshotStep(StepBase, tag="screenshot"):
    """Capture the tab, or `selector`, or the `full_page`; JPEG unless `format` png."""

    selector: str | None = None
    full_page: bool = False
    format: Literal["jpeg", "png"] = "jpeg"
    quality: Annotated[int, Meta(ge=1, le=100)] = 70
    max_width: Annotated[int, Meta(ge=64, le=4096)] = 1280

    KEEP_OUTPUT: ClassVar[bool] = True

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        command = Screenshot(
            id=0,
            selector=self.selector,
            full_page=self.full_page,
            format=self.format,
            quality=self.quality,
            max_width=self.max_width,
            timeout_ms=t,
        )
        return await ctx.call(command, t)
