"""Scroll feeds: scroll the rows' page until the feed ends, then the extract reads them all once.

One `scroll_load` takes as many scrolls as are left, each as soon as the last one's rows came (the
worker watches the tab's requests across them), and answers on a scroll that brought no rows with the
page quiet (`quiet_ms`) and nothing in flight, on the feed's own word that it ended, or at `limit` rows:
the feed's own load time, not a fixed wait. The feed has ended when a scroll brings no rows with no
request of the page in flight. The feed's word (an end notice, `until_selector` or the feed's own, or
the loader it had gone: its load-more control, a row that loads once revealed) is one signal, and one
alone proves nothing (a status block may show "End" between batches): it counts once one more scroll
brings no rows, nothing in flight; that scroll may go one past `max_scrolls`, and waits as long as the
feed has shown its scrolls take to start a request rather than all of `quiet_ms` (the worker's).
A "Load more" button after the rows is pressed by the page when a scroll starts no request
(page/scroll_load.js); rows in a virtualised grid are no feed, and are left to grid.py.
"""

from __future__ import annotations

import asyncio
from typing import Literal

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
    said: Literal["notice", "gone"] | None = None  # the feed's word that it ended, at the last answer
    n = 0
    while n < scroll.max_scrolls or (said is not None and n == scroll.max_scrolls):
        # One scroll at a time to confirm the feed's word, or with a pause between scrolls.
        steps = 1 if said is not None or scroll.delay_ms else scroll.max_scrolls - n
        command = ScrollLoad(
            id=0,
            row_selector=selector,
            until_selector=scroll.until_selector,
            quiet_ms=scroll.quiet_ms,
            confirm=said is not None,
            steps=steps,
            limit=limit,
            timeout_ms=t,
        )
        answer = decode_reply(ScrollLoadReply, await ctx.call(command, t * steps))
        if answer.grid:
            return None
        n += max(1, answer.steps)
        before, after = answer.before, answer.after
        ended = after <= before and not answer.in_flight
        if ended and said == "notice":
            detail = f"{marker} is visible ({after} rows), and one more scroll brought no rows"
            return stop.record(ctx, "end_marker", n, detail, evidence="end_marker_confirmed")
        if ended and not answer.until_found:
            why = "its loader is gone, " if said == "gone" else ""
            detail = (
                f"scrolled to the end and no new rows came ({after} rows; {why}no request started or "
                "in flight after the scroll)"
            )
            return stop.record(ctx, "unchanged", n, detail, evidence="feed_stopped_growing")
        said = "notice" if answer.until_found else "gone" if answer.loader_gone else None
        if limit is not None and after >= limit:
            return stop.short(ctx, "limit", n, limit, 0, None)
        if scroll.delay_ms:
            await asyncio.sleep(scroll.delay_ms / 1000)  # rate limit, not a wait
    more = scroll.max_scrolls * 2
    h = stop.hint("options.scroll.max_scrolls", more, f"the feed still grew at scroll {n}")
    return stop.record(ctx, "max_scrolls", n, f"scroll.max_scrolls ({scroll.max_scrolls}) reached", hint=h)
