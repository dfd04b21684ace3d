"""What a finished scrape's result carries to the agent: the answer and what it needs to trust it.

Every byte of a result is read by the model, on every call. So a finished result keeps its status, its
data (and outputs), its ids (to fetch the rest or go on, to rerun its strategy), and the metadata that says
whether the data is whole or why not — `complete_because`, `partial_because`, `more`, the detail pages'
account (`follow`, `follow_errors`), warnings, truncation, the output schema's verdict, errors — and
leaves out the run's own account: the counts the data already shows, timings, the URL, how it paged,
each workflow step's strategy id, the page telemetry, and the run's id once every row is in the answer
(complete, not cut short: nothing is left to fetch or resume with it). The agent asks for that account with
`options.telemetry: true`; `tabpilot scrape FILE` keeps it always.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, ClassVar, cast

# The run's own account: shown when asked for (options.telemetry), else left out.
ACCOUNT = frozenset(
    {
        "pages_scraped",
        "rows_extracted",
        "duration_ms",
        "url",
        "pagination_mode",
        "pagination_note",
        "pagination_stopped",
        "extraction_ids",
        "telemetry",
    }
)
# A job in these states is over: its result is what it is.
OVER = frozenset({"complete", "partial", "cancelled"})


class Account:
    """The scrapes still running that asked for their account, so that `command_result` and `cancel`
    give it them too (the last few hundred: an id forgotten only costs that run its account)."""

    _KEPT = 256
    _asked: ClassVar[OrderedDict[str, None]] = OrderedDict()

    @classmethod
    def remember(cls, correlation_id: str) -> None:
        """A running scrape that asked for its account."""
        cls._asked[correlation_id] = None
        while len(cls._asked) > cls._KEPT:
            cls._asked.popitem(last=False)

    @classmethod
    def asked(cls, correlation_id: str) -> bool:
        """Whether that scrape asked for its account."""
        return correlation_id in cls._asked


def lean(result: dict[str, Any]) -> dict[str, Any]:
    """`result` without the run's account; a running job's progress and a failed one's result are left
    whole (the agent needs the id, and every clue to a failure)."""
    if result.get("status") not in OVER:
        return result
    out = {k: v for k, v in result.items() if k != "metadata"}
    found = result.get("metadata")
    meta = cast(dict[str, Any], found) if isinstance(found, dict) else {}
    if out.get("status") == "complete":
        if out.get("steps_completed") == out.get("steps_total"):
            out.pop("steps_completed", None)
            out.pop("steps_total", None)
        if "result" not in out and not meta.get("truncated"):
            out.pop("correlation_id", None)  # every row is here: nothing to fetch or resume with it
    kept = {k: v for k, v in meta.items() if k not in ACCOUNT and not (k == "errors" and not v)}
    if meta.get("truncated") and "rows_extracted" in meta:
        kept["rows_extracted"] = meta["rows_extracted"]  # how many rows there were beyond those returned
    if kept:
        out["metadata"] = kept
    return out
