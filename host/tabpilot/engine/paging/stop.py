"""Why a walk stopped, and whether that proves the list was read whole.

`metadata.pagination_stopped: {reason, page, detail}` says why every walk stopped (the ones that usually
mean a wrong selector or a lost session warn as well). On top of it, a stop either carries evidence that
the list ended, `metadata.complete_because` (one of Evidence), or it does not, and then the run is
partial: `metadata.partial_because: {reason, detail, hint}`, the hint naming the option that would read
on (`{"option": "options.paginate.max_pages", "value": 40, "why": ...}`). One signal alone is never
evidence: a feed's end notice counts once one more scroll brought nothing, a missing next control once
the page shows no pager link past the current page either. max_pages, limit and max_scrolls stop a walk
short unless the end was seen on that same page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...wire.replies import NextTarget
from ..context import Context
from .numbered import Run

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
    "grid_incomplete",  # a virtualised grid was read with holes, or not to its end
    "grid_end",  # a virtualised grid was read to its end
]

Evidence = Literal[
    "next_absent",  # no next control (none hidden that leads on), and no pager link past the current page
    "next_disabled",  # the next control is there, disabled
    "last_numbered_page",  # the numbered pager marks this page as its last
    "end_marker_confirmed",  # an end notice showed, and one more scroll brought no rows, nothing in flight
    "feed_stopped_growing",  # scrolled to the end: no new rows, nothing in flight
    "grid_row_count",  # the grid's declared row count was read
    "grid_end",  # the grid's own viewport was scrolled to its end, and a step more brought nothing
]


@dataclass(frozen=True)
class Stop:
    """One walk's end: why, on which page, and the evidence that the list ended (None: it may go on)."""

    reason: Reason
    page: int
    detail: str
    evidence: Evidence | None = None
    hint: dict[str, Any] | None = None


def hint(option: str, value: Any, why: str) -> dict[str, Any]:
    """What the agent can pass to read on: `option` (a dotted path of the request), `value`, `why`."""
    return {"option": option, "value": value, "why": why}


# Documents an extract can read rows from; anything else reached through a next link is not a page.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_WARN = frozenset({"not_html", "redirected", "http_error"})

# The page's paginate outcome "end" reasons, as the agent reads them.
END_REASONS: dict[str, Reason] = {"missing": "no_next", "disabled": "next_disabled", "unchanged": "unchanged"}


def record(
    ctx: Context,
    reason: Reason,
    page: int,
    detail: str,
    *,
    evidence: Evidence | None = None,
    hint: dict[str, Any] | None = None,
) -> Stop:
    """Note why the walk stopped (the last walk of a run wins), with its evidence or, without one, why
    the run is partial (a partial walk keeps the run partial); warn when it looks like a mistake."""
    meta = ctx.state.meta
    meta["pagination_stopped"] = {"reason": reason, "page": page, "detail": detail}
    if evidence is not None:
        if "partial_because" not in meta:
            meta["complete_because"] = evidence
    else:
        meta.pop("complete_because", None)
        meta["partial_because"] = {"reason": reason, "detail": detail, "hint": hint}
    if reason in _WARN:
        ctx.state.warn({"message": f"pagination stopped ({reason}) at page {page}: {detail}"})
    return Stop(reason, page, detail, evidence, hint)


def not_html(kind: str | None) -> str | None:
    """The content type of the document an extract read (its reply's `type`), when it is not HTML."""
    return kind if kind and kind not in HTML_TYPES else None


_END_DETAIL: dict[str, str] = {
    "no_next": "no visible element matches {sel}: the last page",
    "next_disabled": "{sel} is disabled: the last page",
    "unchanged": "clicked {sel}, and neither a new page loaded nor the rows changed",
}


@dataclass(frozen=True)
class End:
    """What a page's next control says about the list's end (see `next_end`)."""

    reason: Reason
    detail: str
    evidence: Evidence | None
    hint: dict[str, Any] | None = None


def end_detail(reason: Reason, sel: str) -> str:
    return _END_DETAIL[reason].format(sel=sel)


def next_end(nxt: NextTarget | None, sel: str, run: Run | None = None, url: str | None = None) -> End | None:
    """The end a page's next control shows (None: it leads on). A missing control proves the end only
    when the page shows no pager link past the current page either (the page agent's `current`,
    `last` and `onward`; for a fetched page, the numbered links read so far: `run`)."""
    if nxt is None or nxt.end is None:
        return None
    reason: Reason = "next_disabled" if nxt.end == "disabled" else "no_next"
    detail = end_detail(reason, sel)
    current, last, sign = nxt.current, nxt.last, 1
    if (current is None or last is None) and run is not None and url is not None:
        current, last, sign = run.same_shape(url), run.last, (1 if run.step > 0 else -1)
    beyond = current is not None and last is not None and (last - current) * sign > 0
    if nxt.onward is not None or beyond:
        seen = f"the pager links pages past this one (to {last})" if beyond else f"{nxt.onward} leads on"
        why = "the page shows a pager link past this page that next_selector does not match"
        control = _END_DETAIL[reason].split(":")[0].format(sel=sel)
        return End(
            reason,
            f"{control}, but {seen}: next_selector probably misses the next control",
            None,
            hint("options.paginate.next_selector", nxt.onward, why),
        )
    if reason == "no_next" and current is not None and current == last:
        return End(reason, detail, "last_numbered_page")
    # A control that still shows the way on, or the pager's own last page (above), tells; else a hidden
    # next link says only that the list may go on.
    if reason == "no_next" and nxt.hidden:
        return End(
            reason,
            f"every element matching {sel} is hidden, and one leads to another page: the page hides its "
            "pager (a feed that loads more as you scroll does), so this may not be the last page",
            None,
            hint("options.scroll", {"max_scrolls": 20}, "the page hides its next link: read on by scrolling"),
        )
    return End(reason, detail, "next_disabled" if reason == "next_disabled" else "next_absent")


def short(
    ctx: Context, reason: Reason, page: int, limit: int | None, max_pages: int, known_last: int | None
) -> Stop:
    """A walk stopped by max_pages or limit with no end seen on that page: partial, and how to read on."""
    if reason == "limit":
        detail = f"options.limit ({limit}) rows collected and the list goes on"
        h = hint("options.limit", None, "the list goes on past the limit: raise it, or drop it for every row")
    else:
        detail = f"paginate.max_pages ({max_pages}) reached and the list goes on"
        more = max(max_pages * 2, known_last or 0)
        h = hint("options.paginate.max_pages", more, f"page {page} still has a next page")
    return record(ctx, reason, page, detail, hint=h)
