"""Why a paginated or scrolled extract stopped: `metadata.pagination_stopped: {reason, page, detail}`.

An agent that gets 2 pages of 25 must be able to tell "the list ended" from "the next link led to a
JSON export": every walk records its reason, and the ones that usually mean a wrong selector or a lost
session (`not_html`, `redirected`) add a warning as well.
"""

from __future__ import annotations

from typing import Literal

from ..context import Context

Reason = Literal[
    "no_next",  # no visible next control
    "next_disabled",  # the next control is disabled (the last page)
    "no_rows",  # a page with no rows
    "unchanged",  # clicked next / scrolled, and the rows stayed the same
    "not_html",  # the next page is not an HTML document (a download, a JSON export)
    "http_error",  # a fetched next page answered 4xx/5xx
    "redirected",  # the next page redirected somewhere without rows (or to a login page)
    "max_pages",  # paginate.max_pages reached
    "max_scrolls",  # scroll.max_scrolls reached
    "end_marker",  # scroll.until_selector (or, without one, the feed's own end notice) became visible
    "limit",  # options.limit rows collected
]

# Documents an extract can read rows from; anything else reached through a next link is not a page.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_WARN = frozenset({"not_html", "redirected", "http_error"})

# The page's paginate outcome "end" reasons, as the agent reads them.
END_REASONS: dict[str, Reason] = {"missing": "no_next", "disabled": "next_disabled", "unchanged": "unchanged"}


def record(ctx: Context, reason: Reason, page: int, detail: str) -> None:
    """Note why the walk stopped (the last walk of a run wins) and warn when it looks like a mistake."""
    ctx.state.meta["pagination_stopped"] = {"reason": reason, "page": page, "detail": detail}
    if reason in _WARN:
        ctx.state.warn({"message": f"pagination stopped ({reason}) at page {page}: {detail}"})


def not_html(kind: str | None) -> str | None:
    """The content type of the document an extract read (its reply's `type`), when it is not HTML."""
    return kind if kind and kind not in HTML_TYPES else None


def after_page(
    ctx: Context,
    *,
    read: int,
    pages: int,
    kept: int,
    redirected: str | None,
    max_pages: int,
    limit: int | None,
) -> bool:
    """Whether a walk ends after page `pages` (`read` rows on it, `kept` kept so far); if so, why."""
    if not read and redirected is not None:
        detail = f"the next page redirected to {redirected}, which has no rows matching the selector"
        record(ctx, "redirected", pages, detail)
    elif not read:
        record(ctx, "no_rows", pages, "this page has no rows matching the selector")
    elif pages >= max_pages:
        record(ctx, "max_pages", pages, f"paginate.max_pages ({max_pages}) reached")
    elif limit is not None and kept >= limit:
        record(ctx, "limit", pages, f"options.limit ({limit}) rows collected")
    else:
        return False
    return True
