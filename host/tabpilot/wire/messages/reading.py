"""Page commands that read: the snapshot, main content, counts, rows by compiled fields, record
suggestions, and moving to the next page of rows."""

from __future__ import annotations

import msgspec

from ..timer import TimeoutMs
from .base import Command


class Snapshot(Command, tag="snapshot"):
    """What a person sees on the page as lean text, with an `@eN` ref for every interactive element.

    Result: `{"text", "cursor_next": int | null, "truncated", "refs": refs in text, "mode": "full" |
    "diff", "url", "title", "tab_id"}`; diff adds `added`/`removed` counts and its text lines start
    with "+ " or "- ". A diff with no earlier snapshot of this document and scope is a full one.
    """

    tab_id: int | None = None
    scope: str | None = None
    max_chars: int = 6_000
    cursor: int = 0
    mode: str = "full"  # "full" | "diff" (changes since this page's previous snapshot)
    timeout_ms: TimeoutMs = 5_000


class MainContent(Command, tag="main_content"):
    """The page's main content as cleaned HTML, for conversion to markdown in the host.

    Result (JSON text): `{"html", "title", "url", "truncated"}`. The page picks `css_selector`'s first
    match, else main / article / [role=main], else the densest block of text; it leaves out navigation,
    page header and footer, asides, hidden elements, dialogs, cookie banners, scripts, styles,
    forms' controls and inline data images, and redacts secrets. `html` stops at `max_bytes`
    characters (`truncated`). An invalid css_selector is invalid_selector; no match is
    element_not_found.
    """

    tab_id: int | None = None
    css_selector: str | None = None
    timeout_ms: TimeoutMs = 10_000
    max_bytes: int = 8 * 1024 * 1024


class Count(Command, tag="count"):
    """How many elements match a selector, and how many of them are visible: `{count, visible}`."""

    selector: str
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 5_000


class FieldPlan(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One compiled schema field: what the page reads for it from each row.

    `selector` "" means the row element itself. `take` is text | html | attr | url (an attribute as an
    absolute URL; `attr` names it, default href/src). `all` gives every match as a list. Type
    conversions (number, boolean) happen in the host; redaction happens in the page.
    """

    name: str
    selector: str = ""
    take: str = "text"
    attr: str | None = None
    all: bool = False


class Extract(Command, tag="extract"):
    """Apply compiled fields to every element matching `selector`; rows come back as value arrays.

    Result: `{"rows": [[value per field, in order], ...], "count": matched, "warnings": [{"field",
    "message"}], "url", "type"}` (`type`: the document's content type); a value is a string, null, or
    a list of strings for `all`. At most `limit` rows; `count` is every match. No match gives
    `rows: []`. An invalid `selector` is invalid_selector; an invalid field selector makes that field
    null in every row with one warning.
    """

    selector: str
    fields: list[FieldPlan]
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000
    limit: int | None = None
    # A virtualised grid is scrolled through and read whole (`"virtual": {rows, scrolls, complete}`
    # in the result): null when the rows carry a row index and scroll in a box of their own.
    virtual: bool | None = None
    # Rows of a grid without a row-index attribute are told apart by these fields' values (else by
    # the whole row's).
    key_fields: list[str] | None = None
    # A grid's read that ran out of time answers `"virtual": {..., "resume": true}` and no rows; the
    # page keeps what it read, and the same command with resume goes on from there. With `last` too,
    # a read out of time answers the rows it has (`"complete": false`) instead: nothing read is lost.
    resume: bool = False
    last: bool = False
    # With a next-page selector the answer also says where the next control leads (`"next"`, see
    # FetchExtract), so link pagination can fetch the next page instead of clicking.
    next_selector: str | None = None


class Suggest(Command, tag="suggest"):
    """Find the page's repeated records (tables, lists, card grids, definition lists, repeated divs).

    Result: `{"candidates": [{"kind", "selector", "fields": [FieldPlan], "converts": {name: "number"},
    "rows", "sample": [[value per field], ...], "next_selector"?, "score"}], "skeleton": {"selector",
    "html", "bytes", "truncated"}, "elements", "duration_ms", "url"}`, best candidate first; `sample`
    holds the first rows read exactly as `extract` reads them (redacted). `css_selector` limits the
    search to one region (element_not_found when nothing matches); `query` words raise candidates
    whose headers, classes or text mention them.
    """

    query: str | None = None
    css_selector: str | None = None
    max_candidates: int = 5
    skeleton_bytes: int = 8_000
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000


class Paginate(Command, tag="paginate"):
    """Activate the next-page control and wait for a navigation or for the row set to change.

    Result: `{"outcome": "navigated" | "redrawn" | "end", "reason", "url"}`. For `end` the reason is
    "missing" (no visible control), "disabled" or "unchanged" (clicked, nothing changed within
    `timeout_ms`); for `navigated` it is "redirected" when the server redirected the new page's
    request (e.g. to a login page; `url` is where it landed), else null; for `redrawn` null.
    `end` (with `pages`): "pages", "limit", "time", "bytes", "navigates" (the next control loads a
    new document), or the list's own end after the last page read: "missing", "disabled", "unchanged".
    """

    next_selector: str
    row_selector: str
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000
    # With fields, the new page's rows come in the same answer (`"page"`: an Extract result), one
    # round trip a page; `limit` and `virtual` as for Extract.
    fields: list[FieldPlan] | None = None
    limit: int | None = None
    virtual: bool | None = None
    # With fields, how many Next clicks this command may make while the rows redraw in place: the
    # pages after the first come in `"more"` (in order), `"end"` says why the clicking stopped. The
    # page stops early after ~500 ms, ~4 MB of rows, `limit` rows, or at a control that would load
    # a new document.
    pages: int = 1


class FetchExtract(Command, tag="fetch_extract"):
    """Fetch a same-origin URL from the tab's page (its cookies), parse it inertly, extract rows.

    The tab does not move. Result: an Extract result (`rows`, `count`, `warnings`, `type`) with `url`
    the final URL after redirects, `redirected`, `status`, and with `next_selector` `"next"`: `{"url",
    "same_origin"}` (a link or a GET form), `{"end": "missing" | "disabled"}` or `{"kind": "button"}`
    (a control that only a script can follow); a link's `"pager"` lists the pager's links beside it
    whose URLs differ from it in one number (`?page=7`, `/p/7`). `selector` defaults to the whole
    document (one row). `cache_first` takes the page from the HTTP cache when it holds a copy, fresh or
    not (for re-reading the page the tab shows: the copy it rendered). `ahead`: how many pages after
    this one the walk will ask for next; the page agent fetches them, each once its predecessor's next
    link is read, and answers a later fetch_extract of one from what it read (the same checks, the
    redaction of that later call). Errors: a cross-origin or
    non-http(s) URL is invalid_params; a final URL outside the allowed sites site_not_allowed; status
    >= 400 http_error (`data.status`); a document that is not HTML not_html; a fetch that fails
    (network, a redirect to another origin) navigation_failed.
    """

    url: str
    fields: list[FieldPlan]
    selector: str | None = None
    next_selector: str | None = None
    limit: int | None = None
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000
    cache_first: bool = False
    ahead: int = 0


class ScrollLoad(Command, tag="scroll_load"):
    """Scroll to the end and wait for more rows (or a visible `until_selector`) to appear.

    Result: `{"before": rows, "after": rows, "until_found": bool}`; after == before when nothing came
    (not an error): within `timeout_ms`, or, with `quiet_ms`, once no row arrived and no request of
    the tab was in flight for that long after the scroll. Without `until_selector`, the feed's own
    end notice ("No more posts") showing up after the rows counts: `until_found` and `end_notice` true.
    """

    row_selector: str
    until_selector: str | None = None
    quiet_ms: int | None = None
    # One more scroll after an end notice, to confirm it: answer on new rows, or once nothing came and
    # no request is in flight, not on the notice (which may show between batches).
    confirm: bool = False
    # Up to this many scrolls, each as soon as the last one's rows came (the tab's requests watched
    # across all of them); the run ends on a scroll that brings none, the end notice, the feed's loader
    # gone, or `limit` rows. `timeout_ms` bounds each scroll.
    steps: int = 1
    limit: int | None = None
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 5_000
