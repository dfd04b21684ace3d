"""Scroll feeds: scroll the rows' page until the feed ends, then the extract reads them all once.

Each `scroll_load` scrolls to the last row and answers when new rows came and the page went quiet
(`quiet_ms`), or when nothing came: the feed's own load time, not a fixed wait.
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
) -> None:
    """Scroll until the end shows, no new rows come, `limit` rows are there or `max_scrolls` ran out."""
    t = timeout_ms
    for n in range(1, scroll.max_scrolls + 1):
        answer = decode_reply(
            ScrollLoadReply,
            await ctx.call(
                ScrollLoad(
                    id=0,
                    row_selector=selector,
                    until_selector=scroll.until_selector,
                    quiet_ms=scroll.quiet_ms,
                    timeout_ms=t,
                ),
                t,
            ),
        )
        before, after = answer.before, answer.after
        if answer.until_found:
            marker = scroll.until_selector or "the feed's own end notice"
            stop.record(ctx, "end_marker", n, f"{marker} is visible ({after} rows)")
            return
        if after <= before:
            detail = (
                f"scrolled to the end and no new rows came ({after} rows; nothing loading for "
                f"{scroll.quiet_ms} ms)"
            )
            stop.record(ctx, "unchanged", n, detail)
            return
        if limit is not None and after >= limit:
            stop.record(ctx, "limit", n, f"options.limit ({limit}) rows loaded")
            return
        if scroll.delay_ms:
            await asyncio.sleep(scroll.delay_ms / 1000)  # rate limit, not a wait
    stop.record(ctx, "max_scrolls", scroll.max_scrolls, f"scroll.max_scrolls ({scroll.max_scrolls}) reached")
