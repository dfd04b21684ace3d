"""`execute_js`: run JavaScript in the page; its JSON result is the step's output."""

from __future__ import annotations

from typing import Any, ClassVar

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import ExecuteJs
from ...wire.replies import ExecuteJsReply, decode_reply
from ..context import Context
from .base import StepBase


class ExecuteJsStep(StepBase, tag="execute_js"):
    """Run `script` (an expression, or a function body with `return`)."""

    script: str

    KEEP_OUTPUT: ClassVar[bool] = True

    async def run(self, ctx: Context) -> Any:
        t = self.timeout()
        value = await ctx.call(ExecuteJs(id=0, script=self.script, timeout_ms=t), t)
        answer = decode_reply(ExecuteJsReply, value)
        if answer.success is False:
            raise TabPilotError(ErrorCode.SCRIPT_ERROR, f"the script threw: {answer.error or ''}")
        return answer.result
