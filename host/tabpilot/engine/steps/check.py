"""`check`: set a checkbox or radio button on or off."""

from __future__ import annotations

from typing import Any

from ...wire.messages import Check
from ..context import Context
from .base import Selector, StepBase


class CheckStep(StepBase, tag="check"):
    """Set the checkbox or radio at `selector` to `checked` (default true)."""

    selector: Selector
    checked: bool = True

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        return await ctx.call(Check(id=0, selector=self.selector, checked=self.checked, timeout_ms=t), t)
