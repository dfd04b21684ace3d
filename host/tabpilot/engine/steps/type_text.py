"""`type`: type text without clearing the field first (search boxes that suggest as you type)."""

from __future__ import annotations

from typing import Any

from ...wire.messages import TypeText
from ..context import Context, secret_answer
from .base import StepBase


class TypeStep(StepBase, tag="type"):
    """Type `text` into `selector`, or into the focused element."""

    text: str
    selector: str | None = None

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        answer = await ctx.call(TypeText(id=0, selector=self.selector, text=self.text, timeout_ms=t), t)
        if secret_answer(answer):
            ctx.state.typed_secret(self.text)
        return answer
