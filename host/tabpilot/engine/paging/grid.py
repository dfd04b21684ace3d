"""Virtualised grids: a grid the page reads while scrolling it through, a timeout at a time.

The page agent scrolls the grid and collects rows as they are drawn; when its timeout runs out it
keeps what it has and answers `virtual.resume`, and the next call (`resume: true`) goes on from there.
The MAX_RESUMES-th such call is the last (`last: true`): out of time, it answers the rows read, and the
read is partial (grid_incomplete, with a longer timeout as the hint): every call answered, none a
hang, no row lost.
A grid read whole says so by its own row count (aria-rowcount, or a count it prints that the read
matches: grid_row_count), else by its box at its end with one step more bringing no row (grid_end);
short of either, the read is partial.
"""

from __future__ import annotations

import msgspec

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Extract
from ...wire.replies import ExtractReply, VirtualRead, decode_reply
from ..context import Context
from . import stop

MAX_RESUMES = 20


def _resumable(answer: ExtractReply) -> bool:
    return answer.virtual is not None and answer.virtual.resume


async def finish(ctx: Context, command: Extract, answer: ExtractReply, timeout_ms: int) -> ExtractReply:
    """`answer` read to the grid's end (resumed with `command`), its reading in `metadata.virtual`."""
    resumed = 0
    while _resumable(answer) and resumed < MAX_RESUMES:
        resumed += 1
        ctx.progress()
        last = resumed == MAX_RESUMES
        again = await ctx.call(msgspec.structs.replace(command, resume=True, last=last), timeout_ms)
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
        read_at = {"rows": v.rows, "scrolls": v.scrolls, "complete": v.complete, "at_end": v.at_end}
        read_at |= {"keyed_by": v.keyed_by} | ({} if v.declared is None else {"declared": v.declared})
        read_at |= {} if v.printed is None else {"printed": v.printed}
        ctx.state.meta["virtual"] = read_at | {"calls": resumed + 1}
    return answer


def end(ctx: Context, read: VirtualRead, limit: int | None, timeout_ms: int) -> stop.Stop:
    """Why a grid's read ended: at its end, at the limit, or short of its end (holes, out of time)."""
    if limit is not None and read.rows >= limit:
        return stop.short(ctx, "limit", 1, limit, 0, None)
    if read.complete and read.declared is not None and read.rows == read.declared:
        detail = f"the grid's own row count was read ({read.rows} rows)"
        return stop.record(ctx, "grid_end", 1, detail, evidence="grid_row_count")
    if read.complete and read.declared is None and read.printed is not None and read.rows == read.printed:
        detail = f"the count the grid prints was read ({read.rows} rows)"
        return stop.record(ctx, "grid_end", 1, detail, evidence="grid_row_count")
    if read.complete and read.declared is not None:
        detail = f"the grid says it has {read.declared} rows, and {read.rows} were read"
        h = stop.hint("options.timeout_ms", timeout_ms * 2, "rows the grid counts were never drawn")
        return stop.record(ctx, "grid_incomplete", 1, detail, hint=h)
    if read.complete and read.at_end:
        detail = f"the grid was scrolled to its end and one step more brought no row ({read.rows} rows)"
        return stop.record(ctx, "grid_end", 1, detail, evidence="grid_end")
    detail = f"the grid was read with holes or not to its end ({read.rows} rows)"
    h = stop.hint("options.timeout_ms", timeout_ms * 2, "the grid was still scrolling, or skipped rows")
    return stop.record(ctx, "grid_incomplete", 1, detail, hint=h)
