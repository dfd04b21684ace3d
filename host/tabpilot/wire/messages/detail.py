"""Reading one detail page in a background tab, for extract's `follow`."""

from __future__ import annotations

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
    """

    url: str
    fields: list[FieldPlan]
    selector: str = ":root"
    wait_for: str | None = None
    tab_id: int | None = None  # the tab whose window gets the background tab
    timeout_ms: int = 10_000
