"""Plan and run every scrape request; around an extract, the strategy cache: resolve, register, stale.

- `plan(req)`: `extract {extraction_id}` becomes the stored selector + schema (or script) with no
  browser call; `use_cache: true` is resolved by `run` (one probe reads the tab's URL); a spec given
  together with `extraction_id` repairs that strategy (same id, same aggregate).
- `run(...)`: the runner, then the bookkeeping: an extract that found rows registers its strategy
  (or bumps its counts) and adds its rows to the aggregate; a cached rerun that failed in a way a
  changed page explains, or found nothing where it used to find rows, becomes `strategy_stale`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.scrape import DEFAULT_MAX_BYTES, ExtractRequest, ScrapeRequest
from . import runner
from .aggregate import Aggregates
from .browser import Browser
from .context import DEFAULT_GRACE_S, Context, RunState, obj
from .digest import page_digest
from .plan import Plan, build_plan, invalid
from .result import fit
from .steps.extract import ExtractStep
from .strategies import SPEC_FIELDS, Strategy, StrategyStore, not_found

# Failures of a rerun that a changed page explains (a timeout or a closed tab does not).
STALE_ON = frozenset({"invalid_selector", "script_error", "validation_failed", "element_not_found"})
STALE_MIN_ROWS = 3  # a strategy that used to find at least this many rows and now finds none is stale
_TOP_LEVEL = ("selector", "schema", "script", "css_selector", "output_schema", "follow")
_OPTIONS = ("wait_for", "paginate", "scroll", "limit", "virtual")


def spec_of(step: ExtractStep) -> dict[str, Any]:
    """What a strategy keeps of an extract step: the SPEC_FIELDS that are set, as JSON."""
    raw: dict[str, Any] = msgspec.to_builtins(step)
    return {k: raw[k] for k in SPEC_FIELDS if raw.get(k) is not None}


def _has_spec(req: ExtractRequest) -> bool:
    return any(getattr(req, k) is not None for k in ("selector", "schema", "script"))


def _with_spec(req: ExtractRequest, spec: dict[str, Any]) -> ExtractRequest:
    """`req` reading what `spec` says; options the request sets itself win over the stored ones."""
    given: dict[str, Any] = msgspec.to_builtins(req.options)
    options = {k: spec[k] for k in _OPTIONS if k in spec} | given
    top = {k: spec.get(k) for k in _TOP_LEVEL}
    try:
        return msgspec.convert(
            {
                **msgspec.to_builtins(req),
                **top,
                "options": options,
                "extraction_id": None,
                "use_cache": False,
            },
            ExtractRequest,
        )
    except msgspec.ValidationError as exc:
        raise invalid(f"the cached strategy no longer fits a request: {exc}") from None


class ScrapeOrchestrator:
    """Plans and runs the scrapes of one data directory, keeping its strategies and aggregates."""

    def __init__(self, root: Path) -> None:
        self.strategies = StrategyStore(root)
        self.aggregates = Aggregates(root)

    def plan(self, req: ScrapeRequest) -> Plan:
        """The plan of an extract request, with its cached strategy resolved (ids checked, no I/O)."""
        if not isinstance(req, ExtractRequest):
            return build_plan(req)
        if req.key_fields is not None and (not req.key_fields or not all(req.key_fields)):
            raise invalid('key_fields: a list of field names that identify a row, e.g. ["sku"]')
        if req.use_cache and (req.extraction_id is not None or _has_spec(req)):
            raise invalid("use_cache: true picks the strategy for this URL; give no extraction_id or spec")
        found = None if req.extraction_id is None else self.strategies.get(req.extraction_id)
        repair = found is not None and _has_spec(req)
        if req.use_cache:
            plan = Plan(operation="extract", steps=[], options=req.options, tab_id=req.tab_id)
        else:
            plan = build_plan(req if found is None or repair else _with_spec(req, found.spec))
        plan.extraction_id = found.extraction_id if found is not None else None
        plan.cached = (found is not None and not repair) or req.use_cache
        plan.key_fields = req.key_fields
        step = plan.steps[0] if plan.steps else None
        if req.key_fields and isinstance(step, ExtractStep) and step.schema is not None:
            detail = step.follow.schema if step.follow is not None else {}
            unknown = [k for k in req.key_fields if k not in step.schema and k not in detail]
            if unknown:
                raise invalid(f"key_fields {unknown} are not fields of the schema ({', '.join(step.schema)})")
        return plan

    async def run(
        self,
        plan: Plan,
        browser: Browser,
        state: RunState,
        *,
        on_progress: Callable[[], None] | None = None,
        grace_s: float = DEFAULT_GRACE_S,
    ) -> runner.Outcome:
        """Run the plan (an extract: with the cache's bookkeeping, see the module docstring)."""
        kw: dict[str, Any] = {"state": state, "on_progress": on_progress, "grace_s": grace_s}
        if plan.operation != "extract":
            outcome = await runner.run(plan, browser, **kw)
            self._register_steps(state)
            return outcome
        if not plan.steps:
            try:
                await self._pick(plan, browser, state, grace_s)
            except TabPilotError as exc:
                return runner.Outcome("error", state, error=exc, failed_step=0)
        outcome = await runner.run(plan, browser, **kw)
        step = plan.steps[0]
        assert isinstance(step, ExtractStep)
        found = None if plan.extraction_id is None else self.strategies.get_or_none(plan.extraction_id)
        if plan.cached and found is not None and self._stale(found, outcome):
            await self._mark_stale(found, step, outcome, browser, grace_s)
            return outcome
        if not outcome.ok:
            return outcome
        rows, url = state.rows, state.url
        if found is not None and plan.cached:
            self.strategies.succeeded(found, rows, plan.key_fields)
        elif rows and url:
            if found is not None:
                found = self.strategies.repaired(found, spec_of(step), rows, plan.key_fields)
            else:
                found = self.strategies.register(url, spec_of(step), rows, plan.key_fields)
        else:
            found = None  # nothing read: no strategy to register, a repair that found nothing fixed nothing
        if found is not None:
            agg = self.aggregates.add(
                found.extraction_id,
                state.data,
                url=url,
                pages=state.pages,
                key_fields=plan.key_fields or found.key_fields,
            )
            # A big run's rows past those it held in memory are not merged (its journal has them all).
            agg.doc.dropped += state.rows - len(state.data)
            plan.extraction_id, plan.aggregate = found.extraction_id, agg.summary()
        return outcome

    def _register_steps(self, state: RunState) -> None:
        """A workflow's (or replay's) extract steps that read rows register their strategies too, so the
        agent can rerun one step on another page by its id (`metadata.extraction_ids`)."""
        ids: dict[str, str] = {}
        for index, step, url, rows in state.extracts:
            if isinstance(step, ExtractStep) and rows and url:
                ids[f"steps[{index}]"] = self.strategies.register(
                    url, spec_of(step), rows, None
                ).extraction_id
        if ids:
            state.meta["extraction_ids"] = ids

    async def _pick(self, plan: Plan, browser: Browser, state: RunState, grace_s: float) -> None:
        """use_cache: read the tab's URL (one cheap page call) and take the best strategy for it."""
        state.steps_total = 1
        ctx = Context(browser, state, tab_id=plan.tab_id, grace_s=grace_s)
        url = await runner.page_url(ctx)
        if url is None:
            raise TabPilotError(
                ErrorCode.STRATEGY_NOT_FOUND, "the tab did not say its URL; pass extraction_id"
            )
        hits = self.strategies.matching(url)
        if not hits:
            raise not_found("matching this URL", self.strategies.for_host(url), url)
        chosen = hits[0]
        resolved = build_plan(_with_spec(ExtractRequest(options=plan.options), chosen.spec))
        plan.steps, plan.tab_id, plan.extraction_id = resolved.steps, ctx.tab_id, chosen.extraction_id

    @staticmethod
    def _stale(s: Strategy, outcome: runner.Outcome) -> bool:
        if outcome.error is not None:
            return str(outcome.error.code) in STALE_ON
        return outcome.ok and outcome.state.rows == 0 and s.typical_rows >= STALE_MIN_ROWS

    async def _mark_stale(
        self, s: Strategy, step: ExtractStep, outcome: runner.Outcome, browser: Browser, grace_s: float
    ) -> None:
        """Turn the outcome into strategy_stale, with what the agent needs to repair it in one call."""
        self.strategies.failed(s)
        got = outcome.state.rows
        cause = outcome.error
        why = (
            f"failed ({cause.code}: {cause.message})"
            if cause is not None
            else f"found 0 rows where it used to find {s.typical_rows}"
        )
        data: dict[str, Any] = {
            "extraction_id": s.extraction_id,
            "typical_rows": s.typical_rows,
            "got_rows": got,
        }
        if cause is not None:
            # What the failure said (a validation_failed's violations too): part of the repair.
            data["cause"] = {"error": str(cause.code), "message": cause.message, **obj(cause.data)}
        data["digest"] = await _digest(browser, outcome.state, step, grace_s)
        outcome.status = "error"
        outcome.failed_step = 0
        outcome.error = TabPilotError(
            ErrorCode.STRATEGY_STALE,
            f"cached strategy {s.extraction_id} {why}: the page changed. Repair it in one call: extract "
            f"{{extraction_id: {s.extraction_id!r}, selector, schema}} (or script) using the digest",
            data=data,
        )

    def answer(self, op: str, extraction_id: str | None) -> dict[str, Any]:
        """The ExtractionOp requests: list strategies, read or clear aggregates."""
        if op == "strategies":
            return {"strategies": [s.summary() for s in self.strategies.all()]}
        if op == "aggregate":
            if not extraction_id:
                raise invalid('aggregate needs extraction_id (observe {what: "strategies"} lists them)')
            agg = self.aggregates.get(extraction_id)
            if agg is None:
                self.strategies.get(extraction_id)  # strategy_not_found when it is not even cached
                empty: dict[str, Any] = {
                    "rows": [],
                    "summary": "0 unique rows from 0 pages",
                    "pages": 0,
                    "duplicates": 0,
                }
                return {"extraction_id": extraction_id, **empty}
            rows, truncated = fit(agg.doc.rows, DEFAULT_MAX_BYTES)
            out: dict[str, Any] = {
                "extraction_id": extraction_id,
                "rows": rows,
                "summary": agg.summary(),
                "pages": agg.doc.pages,
                "duplicates": agg.doc.duplicates,
            }
            if truncated:
                out |= {"truncated": True, "rows_returned": len(rows)}
            return out
        if op == "clear_aggregate":
            if extraction_id is not None and self.aggregates.get(extraction_id) is None:
                self.strategies.get(extraction_id)
            return {"cleared": self.aggregates.clear(extraction_id)}
        raise invalid(f"unknown extraction op {op!r}: strategies, aggregate, clear_aggregate")

    def flush(self) -> None:
        """Write what changed to disk (from a worker thread)."""
        self.strategies.flush()
        self.aggregates.flush()


async def _digest(browser: Browser, state: RunState, step: ExtractStep, grace_s: float) -> Any:
    """A fresh digest of the page the strategy no longer fits, ranked by the fields it used to read;
    the whole page when its region is gone too; what went wrong when the page cannot be read."""
    ctx = Context(browser, state, tab_id=state.tab_id, grace_s=grace_s)
    query = " ".join(step.schema) if step.schema else None
    try:
        try:
            return await page_digest(ctx, query=query, css_selector=step.css_selector)
        except TabPilotError as exc:
            if step.css_selector is None or exc.code not in (
                ErrorCode.ELEMENT_NOT_FOUND,
                ErrorCode.INVALID_SELECTOR,
            ):
                raise
            return await page_digest(ctx, query=query)
    except TabPilotError as exc:
        return {"error": str(exc.code), "message": exc.message}
