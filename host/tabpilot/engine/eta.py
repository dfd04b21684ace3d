"""How far a running scrape has come, and, when its end can be told, when it will get there.

The pages a paginated step will read are known from the last page its numbered pager links, else bounded
by `paginate.max_pages`; with no pager (one page, a feed, a grid read in one go) there is no total and no
ETA, only the pages and rows so far. The ETA is the time a page took in this process so far (a resumed
run does not count the pages its journal already held) times the pages still to read.
"""

from __future__ import annotations

import time
from typing import Any

from .context import RunState

# The first page also pays for loading the tab: an ETA from fewer pages says more about that than the list.
_MIN_PAGES = 2


def measure(state: RunState, base_pages: int = 0, now: float | None = None) -> dict[str, Any]:
    """{pages, rows} and, when the run's total is known, pages_total, total_from and eta_s.
    `base_pages`: pages the run had read before this process took it on (a resumed run's)."""
    out: dict[str, Any] = {"pages": state.pages, "rows": state.rows}
    told = state.total_of() if state.total_of is not None else None
    if told is None:
        return out
    source, total, read = told
    left = max(total - read, 0)
    out["pages_total"] = state.pages + left
    out["total_from"] = source
    done_here = state.pages - base_pages
    if left == 0:
        out["eta_s"] = 0.0
    elif done_here >= _MIN_PAGES:
        elapsed = (time.monotonic() if now is None else now) - state.started
        out["eta_s"] = round(elapsed / done_here * left, 1)
    return out


def duration(seconds: float) -> str:
    """`seconds` as a person reads a wait: 45 s, 3 min 20 s, 1 h 05 min."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def words(seen: dict[str, Any]) -> str:
    """One line for a progress bar or notification: "page 412 of at most 1,000, 41,200 rows, about
    1 min 10 s left"."""
    pages, rows = int(seen["pages"]), int(seen["rows"])
    total = seen.get("pages_total")
    if total is None:
        text = f"{pages:,} pages"
    else:
        bound = "at most " if seen.get("total_from") == "max_pages" else ""
        text = f"page {pages:,} of {bound}{int(total):,}"
    text += f", {rows:,} rows"
    eta = seen.get("eta_s")
    if eta is not None and pages < int(total or 0):
        bound = "up to " if seen.get("total_from") == "max_pages" else ""
        text += f", {bound}about {duration(float(eta))} left"
    return text
