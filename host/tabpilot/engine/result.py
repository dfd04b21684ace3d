"""The answer the agent reads: the seed's shape, lean metadata, data capped at `max_bytes`."""

from __future__ import annotations

from typing import Any

import msgspec

from ..wire.errors import ErrorCode
from .context import obj
from .journal import Journal, uri
from .plan import Plan
from .runner import Outcome
from .steps import suggest

_encoder = msgspec.json.Encoder()


def fit(rows: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], bool]:
    """The longest prefix of rows whose compact JSON array fits in `budget` bytes."""
    if len(_encoder.encode(rows)) <= budget:
        return rows, False
    used = 2  # the brackets
    for n, row in enumerate(rows):
        used += len(_encoder.encode(row)) + (1 if n else 0)
        if used > budget:
            return rows[:n], True
    return rows, False


def response(
    outcome: Outcome, plan: Plan, correlation_id: str, workflow_id: str | None = None
) -> dict[str, Any]:
    """The final result of a scrape (also what command_result returns once it is done)."""
    state = outcome.state
    if plan.operation == "suggest":
        return _suggestion(outcome, correlation_id)
    meta: dict[str, Any] = {
        "pages_scraped": state.pages,
        "rows_extracted": state.rows,
        "duration_ms": outcome.duration_ms,
        "url": state.url,
        "errors": state.errors,
    }
    meta.update(state.meta)
    budget = plan.options.max_bytes
    outputs = state.outputs
    extra = len(_encoder.encode(outputs)) if outputs else 0
    warnings = list(state.warnings)
    handle: dict[str, Any] | None = None
    if state.journal is not None:
        data, truncated = state.journal.inline(extra), False
        if data is None:
            data, handle = state.journal.head(), by_reference(state.journal, correlation_id, meta, warnings)
    else:
        data, truncated = fit(state.data, max(budget - extra, 2))
    if truncated:
        meta["truncated"] = True
        meta["rows_returned"] = len(data)
        warnings.append(
            {
                "message": f"data truncated to {len(data)} of {len(state.data)} rows to stay under "
                f"{plan.options.max_bytes:,} bytes; narrow the selector, use options.limit or paginate less"
            }
        )
    if warnings:
        meta["warnings"] = warnings
    if state.retries:
        meta["retries"] = state.retries
    if state.telemetry is not None:
        meta["telemetry"] = state.telemetry
    if state.skipped:
        meta["skipped_steps"] = state.skipped
    if plan.replayed_from:
        meta["replayed_from"] = plan.replayed_from
    _schema_verdict(outcome, meta)
    if plan.aggregate:
        meta["aggregate"] = plan.aggregate
    out: dict[str, Any] = {"status": outcome.status, "correlation_id": correlation_id}
    if plan.extraction_id and plan.aggregate:
        out["extraction_id"] = plan.extraction_id
    if workflow_id:
        out["workflow_id"] = workflow_id
    if plan.operation != "extract":
        out["steps_completed"] = state.steps_completed
        out["steps_total"] = state.steps_total
    if outcome.error is not None:
        _error(outcome, out, with_step=plan.operation != "extract")
    out["data"] = data
    if handle is not None:
        out["result"] = handle
    if outputs:
        out["outputs"] = outputs
    out["metadata"] = meta
    return out


def by_reference(
    journal: Journal, correlation_id: str, meta: dict[str, Any], warnings: list[dict[str, str]]
) -> dict[str, Any]:
    """The rows as a handle: where to read them (an MCP resource, a page at a time), how many, their
    fields. The answer carries the first few; nothing is cut."""
    tally = journal.tally
    head = journal.head()
    meta["rows_returned"] = len(head)
    warnings.append(
        {
            "message": f"{tally.rows:,} rows ({tally.bytes:,} bytes) are over options.max_bytes "
            f"({journal.budget:,}): data holds the first {len(head)}; read them all through "
            "resources/read of result.uri (a page at a time, next in each page) or "
            f"`tabpilot results export {correlation_id}`"
        }
    )
    return {
        "uri": uri(correlation_id, journal.owner),
        "rows": tally.rows,
        "pages": tally.pages,
        "bytes": tally.bytes,
        "schema": tally.schema(),
        "mime_type": "application/json",
    }


def recovered(correlation_id: str, journal: Journal) -> dict[str, Any]:
    """A run's answer rebuilt from its journal: as it ended, or, when its host died before it ended,
    partial with the rows read so far and the `resume` that goes on from there."""
    found = journal.recovered
    assert found is not None
    tally = journal.tally
    warnings: list[dict[str, str]] = []
    out: dict[str, Any]
    meta: dict[str, Any]
    if found.end is not None:
        out = dict(found.end)
        meta = dict(obj(out.get("metadata")))
        warnings = list(meta.pop("warnings", []))
    else:
        meta = {"pages_scraped": tally.pages, "rows_extracted": tally.rows, "url": tally.url}
        meta["partial_because"] = {
            "reason": "interrupted",
            "detail": f"the run stopped after page {tally.pages} (its host or browser went away); "
            "the rows read until then are kept",
            "hint": {
                "option": "resume",
                "value": correlation_id,
                "why": "the same call with resume goes on from the last page read",
            },
        }
        out = {"status": "partial", "correlation_id": correlation_id}
    data = journal.inline()
    if data is None:
        data = journal.head()
        if "result" not in out:
            out["result"] = by_reference(journal, correlation_id, meta, warnings)
    out["data"] = data
    if warnings:
        meta["warnings"] = warnings
    out["metadata"] = meta
    return out


def _error(outcome: Outcome, out: dict[str, Any], *, with_step: bool) -> None:
    """The failure's code, message, failed step and details (redirect_url, violations, ...) at the top."""
    assert outcome.error is not None
    exc = outcome.error
    out["error"] = str(exc.code)
    out["message"] = exc.message
    if with_step and outcome.failed_step is not None:
        out["failed_step"] = outcome.failed_step
    out.update({k: v for k, v in obj(exc.data).items() if k not in out})


def _schema_verdict(outcome: Outcome, meta: dict[str, Any]) -> None:
    """Rows that failed their output_schema make the data partial (a check that passed says "valid")."""
    codes = [e.get("error") for e in outcome.state.errors]
    if outcome.error is not None:
        codes.append(str(outcome.error.code))
    if str(ErrorCode.VALIDATION_FAILED) in codes:
        meta["output_schema"] = "violated"
        meta["is_partial"] = True


def _suggestion(outcome: Outcome, correlation_id: str) -> dict[str, Any]:
    body = suggest.response(outcome.state.outputs, outcome.status, outcome.duration_ms)
    out: dict[str, Any] = {"status": outcome.status, "correlation_id": correlation_id}
    if outcome.error is not None:
        _error(outcome, out, with_step=False)
    return out | {k: v for k, v in body.items() if k != "status"}


def progress(
    state_steps: tuple[int, int],
    pages: int,
    rows: int,
    cid: str,
    status: str,
    follow: dict[str, Any] | None = None,
    ahead: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What a caller gets while the scrape still runs (with detail pages done/total when following, and
    `ahead`: the pages total and ETA when known, eta.measure's)."""
    done, total = state_steps
    moved: dict[str, Any] = {"pages": pages, "rows": rows} | (ahead or {})
    if follow:
        moved |= {"details_done": int(follow.get("done", 0)), "details_total": int(follow.get("total", 0))}
    return {
        "status": status,
        "correlation_id": cid,
        "steps_completed": done,
        "steps_total": total,
        "progress": moved,
    }
