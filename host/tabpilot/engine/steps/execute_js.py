"""`execute_js`: run JavaScript in the page; its JSON result is the step's output."""

from __future__ import annotations

from typing import Any, ClassVar

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import ExecuteJs
from ..context import Context, obj
from .base import StepBase


class ExecuteJsStep(StepBase, tag="execute_js"):
    """Run `script` (an expression, or a function body with `return`)."""

    script: str

    KEEP_OUTPUT: ClassVar[bool] = True

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        value = await ctx.call(ExecuteJs(id=0, script=self.script, timeout_ms=t), t)
        answer = obj(value)
        if answer.get("success") is False:
            raise TabPilotError(ErrorCode.SCRIPT_ERROR, f"the script threw: {answer.get('error', '')}")
        return answer.get("result")
