"""`click`: click an element as a person would."""

from __future__ import annotations

from typing import Any

from ...wire.messages import Click
from ..context import Context
from .base import Selector, StepBase


class ClickStep(StepBase, tag="click"):
    """Click `selector` (`click_count` 2 for a double click)."""

    selector: Selector
    button: str = "left"
    click_count: int = 1

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        command = Click(
            id=0, selector=self.selector, button=self.button, click_count=self.click_count, timeout_ms=t
        )
        return await ctx.call(command, t)
