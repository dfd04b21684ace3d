"""`select`: choose options of a <select> by value or visible label."""

from __future__ import annotations

from typing import Any

from ...wire.messages import SelectOption
from ..context import Context
from .base import Selector, StepBase


class SelectStep(StepBase, tag="select"):
    """Choose `values` (or the single `value`) in the <select> at `selector`."""

    selector: Selector
    values: list[str] | None = None
    value: str | None = None

    def __post_init__(self) -> None:
        if (self.values is None) == (self.value is None):
            raise ValueError("a select step needs value or values (one of them)")

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        values = self.values if self.values is not None else [self.value or ""]
        return await ctx.call(SelectOption(id=0, selector=self.selector, values=values, timeout_ms=t), t)
