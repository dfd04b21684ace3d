"""Replies of the page commands that read: snapshot, main content, count, extract, suggest, paginate,
scroll_load."""

from __future__ import annotations

from typing import Any

import msgspec

from .. import secret_urls
from ..messages.reading import FieldPlan
from ..scrape import PaginateOptions, ScrollOptions
from .base import Reply, TabReply


class SnapshotReply(TabReply):
    """The page as lean text; `mode` diff adds the counts of `added` and `removed` lines."""

    text: str = ""
    cursor_next: int | None = None
    truncated: bool = False
    refs: int = 0
    mode: str = "full"
    title: str = ""
    added: int | None = None
    removed: int | None = None
    note: str | None = None


class MainContentReply(Reply):
    """The page's main content as cleaned HTML (cut at `max_bytes`: `truncated`)."""

    html: str = ""
    title: str = ""
    url: str | None = None
    truncated: bool = False


class CountReply(Reply):
    """How many elements match, and how many of them are visible."""

    count: int = 0
    visible: int = 0


class FieldWarning(Reply):
    """A field whose selector failed: null in every row."""

    field: str = ""
    message: str = ""


class VirtualRead(Reply):
    """How a virtualised grid was read: rows seen, scrolls, whether whole; `resume` when time ran out;
    the evidence for its end (`at_end`, `declared`, `printed`)."""

    rows: int = 0
    scrolls: int = 0
    complete: bool = True
    resume: bool = False
    # The rows' scrolling box reached its end, and one more step there brought no new row.
    at_end: bool = False
    # The grid's own row count (aria-rowcount less its header rows), when it declares one.
    declared: int | None = None
    # Without a declared count, a count printed beside the rows ("Showing 1 to 20 of 2,000", "2,000
    # rows"): evidence only when the rows read match it (a page may print a page size instead).
    printed: int | None = None
    # How rows were told apart: "index" (a row-index attribute), "key_fields", or "values" (whole rows).
    keyed_by: str = "index"


class NextTarget(Reply):
    """Where a next-page control leads: `url` for a link or a GET form (`same_origin` with the page),
    `end` (missing | disabled) on the last page, or `kind` "button" for a control only a script follows.
    `pager`: the numbered links near a link whose URLs differ from `url` in one number only."""

    url: str | None = None
    same_origin: bool = False
    end: str | None = None
    kind: str | None = None
    pager: list[str] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance
    # The link is a secret (the redaction list marks it): `url` is followed, and written nowhere whole.
    sensitive: bool = False
    # With `end`, on a rendered page: the page number its numbered pager marks current, the highest it
    # links, and a selector for a control that still leads on (a numbered link past `current`, a
    # rel=next link, a link that reads "next"): a missing next control with a pager going on is a
    # next_selector that misses, not the last page.
    current: int | None = None
    last: int | None = None
    onward: str | None = None
    # With `end` "missing": every element the selector matches is hidden, and one leads to another page
    # (a feed that loads on scroll hides its pager): no proof of the end.
    hidden: bool = False

    def __post_init__(self) -> None:
        if self.sensitive and self.url:
            secret_urls.remember(self.url)


class ListMore(Reply):
    """What shows that a list read without paging goes on: `seen` pager | next_link | load_more |
    grid_rows, `selector` for the control (when there is one), `rows` the grid's declared row count."""

    seen: str = ""
    selector: str | None = None
    rows: int | None = None


class ExtractReply(Reply):
    """Rows as value arrays (one value per field, in order), how many matched, and the document's type."""

    rows: list[list[Any]] = []  # noqa: RUF012 - as above
    count: int = 0
    warnings: list[FieldWarning] = []  # noqa: RUF012 - as above
    url: str | None = None
    type: str | None = None
    virtual: VirtualRead | None = None
    next: NextTarget | None = None  # asked for with next_selector
    more: ListMore | None = None  # without next_selector: the rows' list visibly goes on


class FetchExtractReply(ExtractReply):
    """An extract of a fetched page: `url` is where redirects ended, `status` its HTTP status; `later`:
    the pages after it along next links that the page agent read ahead (FetchExtract.ahead), in order.
    `inert`: nothing on the page could make it read otherwise rendered (no script element or handler
    attribute, no frame, object or embed, no noscript, no declarative shadow root, no refresh, and its
    text decoded as the browser would: served as UTF-8, or ASCII). `http1`: the page's own load came over
    HTTP/1 (the browser then opens at most 6 connections to the site, however many pages are asked for)."""

    status: int = 0
    redirected: bool = False
    inert: bool = False
    later: list[FetchExtractReply] = []  # noqa: RUF012 - msgspec copies mutable defaults
    ms: float | None = None  # asked with a pool: the request's own time at the site, place to body
    http1: bool = False


class FirstPage(Reply):
    """Where a list shown from a later page begins: the address of its first page, or the control that
    redraws it in place."""

    url: str | None = None
    selector: str | None = None


class ReadingGuess(Reply):
    """How the rest of a candidate's list is read: `kind` (next_link, next_button, numbered, load_more,
    feed, grid), `why` in one line, the extract option for it (`paginate` or `scroll`), and `first`
    when the tab shows a later page than the list's first."""

    kind: str | None = None
    why: str | None = None
    paginate: PaginateOptions | None = None
    scroll: ScrollOptions | None = None
    first: FirstPage | None = None


class Candidate(Reply):
    """One repeated structure the page found, with its draft fields and first rows read as extract does."""

    kind: str | None = None
    selector: str | None = None
    fields: list[FieldPlan] = []  # noqa: RUF012 - as above
    converts: dict[str, str] = {}  # noqa: RUF012 - as above
    rows: int = 0
    sample: list[list[Any]] = []  # noqa: RUF012 - as above
    next_selector: str | None = None
    score: int | float | None = None  # as the page rounded it (an int stays an int in the answer)
    paging: ReadingGuess | None = None  # the best candidate's only


class Skeleton(Reply):
    """A trimmed copy of the best region's HTML, within a byte budget."""

    selector: str | None = None
    html: str = ""
    bytes: int = 0
    truncated: bool = False


class SuggestReply(Reply):
    """The page's repeated records, best first, and the skeleton of the best region."""

    candidates: list[Candidate] = []  # noqa: RUF012 - as above
    skeleton: Skeleton = msgspec.field(default_factory=Skeleton)
    elements: int = 0
    duration_ms: int | float = 0
    url: str | None = None


class PaginateReply(Reply):
    """`outcome` navigated | redrawn | end, `reason` (missing, disabled, unchanged; redirected), `url`."""

    outcome: str  # required: a reply without it says nothing
    reason: str | None = None
    url: str | None = None
    page: ExtractReply | None = None  # the new page's rows, when the command asked (fields)
    more: list[ExtractReply] = []  # noqa: RUF012 - as above; the pages after `page` (pages > 1)
    end: str | None = None  # why a command with pages > 1 stopped clicking (see Paginate)


class ScrollLoadReply(Reply):
    """Rows before and after the scroll, and whether `until_selector` showed up."""

    before: int = 0
    after: int = 0
    until_found: bool = False
    end_notice: bool = False  # what showed up is the feed's own end notice (no until_selector given)
    at_end: bool = False  # the rows' scrolling box (or the page) was scrolled to its end as it answered
    button: bool = False  # a load-more control after the rows ("Load more", "View more")
    clicked: bool = False  # ... and it was pressed (the scroll had started no request)
    in_flight: int = 0  # the tab's loader requests still running as the page answered (a feed still loading)
    requests: int = 0  # the tab's loader requests started during the step
    load_ms: int = 0  # from the first of them starting to the last ending: the site's own time
    grid: bool = False  # the rows are a virtualised grid's: extract reads them (nothing was scrolled)
    steps: int = 1  # scrolls taken; before/after are the last one's
    # The feed had a loader (a load-more control, a row that loads once revealed) and none is left.
    loader_gone: bool = False
