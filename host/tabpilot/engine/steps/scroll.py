"""`scroll`: an element into view, or the page by dx/dy or to top/bottom."""

from __future__ import annotations

from typing import Any, Literal

from ...wire.messages import Scroll
from ..context import Context
from .base import StepBase


class ScrollStep(StepBase, tag="scroll"):
    """Scroll `selector` into view, or scroll by `dx`/`dy`, or `to` top/bottom."""

    selector: str | None = None
    dx: int = 0
    dy: int = 0
    to: Literal["top", "bottom"] | None = None

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        command = Scroll(id=0, selector=self.selector, dx=self.dx, dy=self.dy, to=self.to, timeout_ms=t)
        return await ctx.call(command, t)
