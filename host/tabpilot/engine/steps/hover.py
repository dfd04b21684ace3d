"""`hover`: move the pointer over an element (opens hover menus and tooltips)."""

from __future__ import annotations

from typing import Any

from ...wire.messages import Hover
from ..context import Context
from .base import Selector, StepBase


class HoverStep(StepBase, tag="hover"):
    """Hover over `selector`."""

    selector: Selector

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        return await ctx.call(Hover(id=0, selector=self.selector, timeout_ms=t), t)
