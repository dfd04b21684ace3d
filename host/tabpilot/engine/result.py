"""The answer the agent reads: the seed's shape, lean metadata, data capped at `max_bytes`."""

from __future__ import annotations

from typing import Any, cast

import msgspec

from ..wire.errors import ErrorCode
from .context import obj
from .plan import Plan
from .runner import Outcome
from .steps import suggest

_encoder = msgspec.json.Encoder()


REDACTED = "[REDACTED]"
# Shorter values are too common to replace wherever they occur (a PIN's digits in prices).
_MIN_SCRUB = 3


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` with every text typed into a secret field during the run replaced by [REDACTED]: what a
    script read back from such a field (an execute_js output) is neither returned nor kept."""
    wanted = sorted({s for s in secrets if len(s) >= _MIN_SCRUB}, key=len, reverse=True)
    return _scrub(value, wanted) if wanted else value


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in cast(list[Any], value)]
    return value


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
    if outputs:
        budget -= len(_encoder.encode(outputs))
    data, truncated = fit(state.data, max(budget, 2))
    warnings = list(state.warnings)
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
    if outputs:
        out["outputs"] = outputs
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
) -> dict[str, Any]:
    """What a caller gets while the scrape still runs (with detail pages done/total when following)."""
    done, total = state_steps
    moved: dict[str, int] = {"pages": pages, "rows": rows}
    if follow:
        moved |= {"details_done": int(follow.get("done", 0)), "details_total": int(follow.get("total", 0))}
    return {
        "status": status,
        "correlation_id": cid,
        "steps_completed": done,
        "steps_total": total,
        "progress": moved,
    }
