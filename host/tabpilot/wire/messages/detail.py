"""Reading detail pages for extract's `follow`: fetched several to a command from the list's page, or
in background tabs, one page a command, in tabs a run keeps (`pool`) and reuses, released together at
the end."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..scrape import MAX_CONCURRENCY
from ..timer import TimeoutMs
from .base import Command
from .reading import FieldPlan


class ExtractTab(Command, tag="extract_tab"):
    """Read one page in a background tab: open `url` beside `tab_id` (never active), wait for its load
    and `wait_for`, apply `fields` to the first `selector` match, close the tab (also on failure or
    cancel). The site scope is checked before the load and on every redirect.

    Result: `{"rows": [[value per field]] (at most one), "count", "warnings", "landed": the final URL,
    "type", "status": the HTTP status or null, "redirected"}`; a page that landed elsewhere than `url`
    (a login page) is not read: `redirected: true` and no rows. Errors: navigation_failed
    (`data.status` for an HTTP error), timeout, site_not_allowed, invalid_selector, invalid_params.

    With `pool`, the tab stays open after a clean read (`kept_tab_id` in the result) for a later
    command of the same pool to load its page in (`reuse_tab_id`: a tab this pool kept, else
    invalid_params); `release_tabs` closes them. A failed read closes its tab all the same. `expect`: a
    selector the page's scripts may still draw, waited for until shortly before the timeout, then the
    page is read as it is (unlike `wait_for`, not finding it is no error).
    """

    url: str
    fields: list[FieldPlan]
    selector: str = ":root"
    wait_for: str | None = None
    tab_id: int | None = None  # the tab whose window gets the background tab
    timeout_ms: TimeoutMs = 10_000
    pool: str | None = None
    reuse_tab_id: int | None = None
    expect: str | None = None


class ReleaseTabs(Command, tag="release_tabs"):
    """Close every background tab `extract_tab` opened for `pool` (the end of a run's `follow`, also
    after a failure or a cancel). Result: `{"closed": number of tabs closed}`."""

    pool: str


class FetchDetails(Command, tag="fetch_details"):
    """Fetch several same-origin pages from the tab's page at once, each read as `fetch_extract` reads
    one (parsed inertly, its scripts searched, redacted): one trip for several detail pages.

    Result: `{"pages": [...]}`, one entry per URL in the order of `urls`: `{"ok": <fetch_extract's
    result>}` or `{"error": {"code", "message", "data"}}` (that page's failure, as fetch_extract would
    raise it; a final URL outside the allowed sites is site_not_allowed). A page whose answer would
    make the reply too big is `{"deferred": true}`: ask for it alone. Errors of the command
    itself: invalid_params (no URL, more than 32, a URL that is no string), and what reaching the tab
    fails with.

    With `pool` and `in_flight`, the pages of every fetch_details of that pool share `in_flight` places
    at the site: a page's request waits in the page for one and gives it back once its body is read
    (parsing and reading it hold none), so a run can ask for more pages than the site is to get at once
    and the site never waits for the next command. `fetch_ms`: each page's own limit from when its
    request leaves (default `timeout_ms`; the command's `timeout_ms` then covers the wait for a place
    too). A page read with a place says how long its request took at the site (`ms`, place to body).
    """

    urls: list[str]
    fields: list[FieldPlan]
    selector: str | None = None
    limit: int | None = None
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000
    pool: str | None = None
    in_flight: Annotated[int, Meta(ge=1, le=MAX_CONCURRENCY)] | None = None
    fetch_ms: TimeoutMs | None = None
