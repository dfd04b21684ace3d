"""`press`: a key or chord on an element or on whatever has focus."""

from __future__ import annotations

from typing import Any

from ...wire.messages import Press
from ..context import Context, secret_answer
from .base import StepBase


class PressStep(StepBase, tag="press"):
    """Press `key` (`Enter`, `Tab`, `Control+a`) on `selector`, or on the focused element."""

    key: str
    selector: str | None = None

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        answer = await ctx.call(Press(id=0, selector=self.selector, key=self.key, timeout_ms=t), t)
        if secret_answer(answer):
            ctx.state.typed_secret(self.key, keystroke=True)
        return answer
