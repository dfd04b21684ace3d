"""The politeness pause before the next page of a paginated extract.

`paginate.delay_ms` spares the site's server: it applies before a next page the server sends (a link
that navigates, a form). A Next that redraws the table in place is paced by the page itself, as when
a person clicks through it, and waiting for the redraw is the only wait it needs: no pause there.
"""

from __future__ import annotations

import asyncio

from ...wire.errors import TabPilotError
from ...wire.messages import Count
from ...wire.replies import CountReply, decode_reply
from ...wire.scrape import PaginateOptions
from ..context import Context

# A next control that asks the server for a page: a real link, or anything inside a form.
_SERVER_SENT = "a[href]:not([href^='#']):not([href^='javascript:' i]), form *"


async def _sends_for_page(ctx: Context, next_selector: str, timeout_ms: int) -> bool:
    """Whether a visible next control looks like a link or a form's button (asked once, ~2 ms)."""
    probe = Count(id=0, selector=f":is({next_selector}):is({_SERVER_SENT})", timeout_ms=timeout_ms)
    try:
        answer = decode_reply(CountReply, await ctx.call(probe, timeout_ms))
    except TabPilotError:
        return True  # the click itself reports what is wrong; meanwhile, be polite
    return answer.visible > 0


async def before_next(ctx: Context, paginate: PaginateOptions, redraws: bool | None, timeout_ms: int) -> None:
    """Pause `paginate.delay_ms` unless the next page is a redraw in place.

    `redraws` is what the last click did (None before the first one: then the control's kind decides)."""
    if not paginate.delay_ms or redraws:
        return
    if redraws is None and not await _sends_for_page(ctx, paginate.next_selector, timeout_ms):
        return
    await asyncio.sleep(paginate.delay_ms / 1000)  # rate limit, not a wait
