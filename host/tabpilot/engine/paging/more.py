"""A list read without paging that visibly goes on: `metadata.more = {seen, hint}`.

A one-page extract answers the page asked for (its status stays complete), but when the page agent saw
that the rows' list continues (a pager or next link beside it, a load-more button, a grid declaring
more rows than it shows) the agent is told, with the option that would read the rest.
"""

from __future__ import annotations

from typing import Any

from ...wire.replies import ListMore
from ..context import Context
from . import stop

# What `seen` means, and the option that reads on from it.
_READ_ON: dict[str, tuple[str, str]] = {
    "pager": ("options.paginate.next_selector", "a pager links the pages after this one"),
    "next_link": ("options.paginate.next_selector", "a next link leads to the page after this one"),
    "load_more": ("options.scroll.max_scrolls", "a load-more control follows the rows"),
    "grid_rows": ("options.scroll.max_scrolls", "the grid declares more rows than it shows"),
}


def note(ctx: Context, seen: ListMore | None) -> None:
    """Write `metadata.more` when the page saw the list going on."""
    if seen is None or seen.seen not in _READ_ON:
        return
    option, why = _READ_ON[seen.seen]
    value: Any = seen.selector if option.endswith("next_selector") else 20
    if seen.rows is not None:
        why = f"{why} ({seen.rows} rows)"
    ctx.state.meta["more"] = {"seen": seen.seen, "hint": stop.hint(option, value, why)}
