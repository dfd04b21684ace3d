"""Virtualised grids: a grid the page reads while scrolling it through, a timeout at a time.

The page agent scrolls the grid and collects rows as they are drawn; when its timeout runs out it
answers what it has with `virtual.resume`, and the next call (`resume: true`) goes on from there. A
grid still unread after MAX_RESUMES more calls is a timeout: every call answered, so none is a hang.
"""

from __future__ import annotations

import msgspec

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Extract
from ...wire.replies import ExtractReply, decode_reply
from ..context import Context

MAX_RESUMES = 20


def _resumable(answer: ExtractReply) -> bool:
    return answer.virtual is not None and answer.virtual.resume


async def finish(ctx: Context, command: Extract, answer: ExtractReply, timeout_ms: int) -> ExtractReply:
    """`answer` read to the grid's end (resumed with `command`), its reading in `metadata.virtual`."""
    resumed = 0
    while _resumable(answer) and resumed < MAX_RESUMES:
        resumed += 1
        ctx.progress()
        again = await ctx.call(msgspec.structs.replace(command, resume=True), timeout_ms)
        answer = decode_reply(ExtractReply, again)
    if _resumable(answer):
        raise TabPilotError(
            ErrorCode.TIMEOUT,
            f"the grid was still being read after {MAX_RESUMES + 1} timeouts of {timeout_ms} ms; "
            "pass options.limit, or a longer options.timeout_ms",
            retryable=True,
        )
    if (v := answer.virtual) is not None:
        # Rows read while the grid scrolled, over this many calls.
        read_at = {"rows": v.rows, "scrolls": v.scrolls, "complete": v.complete}
        ctx.state.meta["virtual"] = read_at | {"calls": resumed + 1}
    return answer
