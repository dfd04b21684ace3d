"""`wait`: until a selector is visible (or hidden, attached, detached), a text shows, or the URL matches."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ...wire.messages import WaitFor
from ..context import Context
from .base import StepBase


class WaitStep(StepBase, tag="wait"):
    """Wait for `selector` in `state`, or for `text`, or for the URL to match `url`."""

    selector: str | None = None
    state: Literal["visible", "hidden", "attached", "detached"] = "visible"
    text: str | None = None
    url: str | None = None

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 10_000

    def __post_init__(self) -> None:
        if self.selector is None and self.text is None and self.url is None:
            raise ValueError("a wait step needs selector, text or url")

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        command = WaitFor(
            id=0, selector=self.selector, state=self.state, text=self.text, url=self.url, timeout_ms=t
        )
        return await ctx.call(command, t)
