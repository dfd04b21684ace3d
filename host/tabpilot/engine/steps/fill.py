"""`fill`: clear a field and type a value (input and change events fire)."""

from __future__ import annotations

import re
from typing import Any

from ...wire.messages import Fill
from ..context import Context, secret_answer
from .base import Selector, StepBase

_SECRET_SELECTOR = re.compile(r"pass|secret|token|otp|pin\b|cvv|cvc", re.I)


class FillStep(StepBase, tag="fill"):
    """Fill `selector` with `value`; write `{{params.password}}` rather than a literal secret."""

    selector: Selector
    value: str

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        answer = await ctx.call(Fill(id=0, selector=self.selector, value=self.value, timeout_ms=t), t)
        if secret_answer(answer) or _SECRET_SELECTOR.search(self.selector):
            # A recording must not keep this text: it becomes a parameter (see workflows.record).
            ctx.state.typed_secret(self.value)
        return {"filled": True}
