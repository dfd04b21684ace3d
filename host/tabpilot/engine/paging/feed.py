"""Scroll feeds: scroll the rows' page until the feed ends, then the extract reads them all once.

Each `scroll_load` scrolls to the last row and answers when new rows came and the page went quiet
(`quiet_ms`), or when nothing came: the feed's own load time, not a fixed wait. The feed has ended when
a scroll brings no rows with no request of the page in flight. An end notice (`until_selector`, or the
feed's own) is one signal, and one alone proves nothing (a status block may show "End" between
batches): it counts once one more scroll brings no rows, nothing in flight; that scroll may go one past
`max_scrolls`. A "Load more" button after the rows is pressed by the page when a scroll starts no
request (page/scroll_load.js); rows in a virtualised grid are no feed, and are left to grid.py.
"""

from __future__ import annotations

import asyncio

from ...wire.messages import ScrollLoad
from ...wire.replies import ScrollLoadReply, decode_reply
from ...wire.scrape import ScrollOptions
from ..context import Context
from . import stop


async def load(
    ctx: Context, selector: str, scroll: ScrollOptions, limit: int | None, timeout_ms: int
) -> stop.Stop | None:
    """Scroll until the end is proven, `limit` rows are there or `max_scrolls` ran out; None when the
    rows are a virtualised grid's (the extract reads those scrolling the grid's own box: grid.py)."""
    t = timeout_ms
    marker = scroll.until_selector or "the feed's own end notice"
    seen: int | None = None  # the scroll that showed the end notice, when the last one did
    n = 0
    while n < scroll.max_scrolls or (seen is not None and n == scroll.max_scrolls):
        n += 1
        command = ScrollLoad(
            id=0,
            row_selector=selector,
            until_selector=scroll.until_selector,
            quiet_ms=scroll.quiet_ms,
            confirm=seen is not None,
            timeout_ms=t,
        )
        answer = decode_reply(ScrollLoadReply, await ctx.call(command, t))
        if answer.grid:
            return None
        before, after = answer.before, answer.after
        ended = after <= before and not answer.in_flight
        if ended and seen is not None:
            detail = f"{marker} is visible ({after} rows), and one more scroll brought no rows"
            return stop.record(ctx, "end_marker", n, detail, evidence="end_marker_confirmed")
        if ended and not answer.until_found:
            detail = (
                f"scrolled to the end and no new rows came ({after} rows; nothing loading for "
                f"{scroll.quiet_ms} ms)"
            )
            return stop.record(ctx, "unchanged", n, detail, evidence="feed_stopped_growing")
        seen = n if answer.until_found else None
        if limit is not None and after >= limit:
            return stop.short(ctx, "limit", n, limit, 0, None)
        if scroll.delay_ms:
            await asyncio.sleep(scroll.delay_ms / 1000)  # rate limit, not a wait
    more = scroll.max_scrolls * 2
    h = stop.hint("options.scroll.max_scrolls", more, f"the feed still grew at scroll {n}")
    return stop.record(ctx, "max_scrolls", n, f"scroll.max_scrolls ({scroll.max_scrolls}) reached", hint=h)
