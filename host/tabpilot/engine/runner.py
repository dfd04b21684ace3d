"""Run a plan step by step: conditions, templates, the pause between steps, recovery, partial data."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.messages import Count, Extract, FieldPlan
from ..wire.scrape import Condition
from . import telemetry
from .browser import Browser
from .context import DEFAULT_GRACE_S, Context, RunState, obj
from .plan import Plan, params_ahead
from .steps import STEP_UNION, StepBase
from .steps.extract import ExtractStep
from .steps.navigate import NavigateStep
from .template import TemplateError, substitute
from .urls import host_of

# Failures no later step can get past: abort with the partial data whatever on_failure says.
FATAL = frozenset(
    {
        ErrorCode.TAB_CLOSED,
        ErrorCode.TAB_NOT_FOUND,
        ErrorCode.EXTENSION_DISCONNECTED,
        ErrorCode.EXTENSION_NOT_CONNECTED,
        ErrorCode.AI_WEB_PILOT_DISABLED,
        ErrorCode.NAVIGATION_REDIRECT,
        ErrorCode.DOMAIN_MISMATCH,
        ErrorCode.PROTOCOL_MISMATCH,
    }
)


@dataclass
class Outcome:
    """How a run ended, with everything it produced."""

    status: str  # complete | partial | error | cancelled
    state: RunState
    error: TabPilotError | None = None
    failed_step: int | None = None
    duration_ms: int = 0

    @property
    def ok(self) -> bool:
        """Every step ran (partial: a walk stopped with no proof that its list ended)."""
        return self.status in ("complete", "partial")


async def run(
    plan: Plan,
    browser: Browser,
    *,
    state: RunState | None = None,
    on_progress: Callable[[], None] | None = None,
    grace_s: float = DEFAULT_GRACE_S,
) -> Outcome:
    """Execute the plan; never raises for a step failure (the Outcome says), only for a bug."""
    state = state or RunState(steps_total=len(plan.steps))
    ctx = Context(
        browser,
        state,
        tab_id=plan.tab_id,
        params=plan.params,
        recovery=plan.recovery,
        on_progress=on_progress,
        allowed_hosts=plan.allowed_hosts,
        grace_s=grace_s,
    )
    outcome = Outcome("complete", state)
    try:
        await _steps(plan, ctx, outcome)
        if outcome.status == "complete" and "partial_because" in state.meta:
            outcome.status = "partial"  # the metadata says why, and the option that reads on
        if _wants_telemetry(plan) and (outcome.error is None or outcome.error.code not in _NO_PAGE):
            state.telemetry = await telemetry.summary(ctx, state.started)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        outcome.status = "cancelled"
        outcome.error = TabPilotError(ErrorCode.CANCELLED, "the scrape was cancelled; data holds what it had")
        outcome.failed_step = state.step
    outcome.duration_ms = int((time.monotonic() - state.started) * 1000)
    state.step = None
    return outcome


async def _steps(plan: Plan, ctx: Context, outcome: Outcome) -> None:
    state = ctx.state
    executed = 0
    for i, original in enumerate(plan.steps):
        state.step = i
        ctx.progress()
        step = original
        try:
            if executed and plan.options.delay_ms:
                await asyncio.sleep(plan.options.delay_ms / 1000)  # the pace the user asked for, not a wait
            if _journaled(step, i, state):
                state.steps_completed += 1  # resumed: its rows are in the journal already
                continue
            if ctx.allowed_hosts is not None and state.url is None and not isinstance(step, NavigateStep):
                await _check_current_host(ctx)
            # The condition first: a step that does not run needs no params (a login step's password).
            if not await _should_run(step, ctx):
                state.steps_completed += 1
                state.skipped.append(i)
                continue
            if step.if_ is not None or step.unless is not None:
                params_ahead(plan, i, ctx.variables["params"])
            step = _resolved(original, ctx.variables)
            executed += 1
            rows_before = state.rows
            output = await step.run(ctx)
        except TabPilotError as exc:
            if await _login_bounce(plan, i, step, exc, ctx):
                state.steps_completed += 1
                continue
            if exc.code in FATAL or plan.recovery.on_failure == "abort_with_partial":
                outcome.status, outcome.error, outcome.failed_step = "error", exc, i
                return
            state.errors.append({"step": i, "error": str(exc.code), "message": exc.message})
            output = None
        else:
            _keep(step, i, output, ctx, state.rows - rows_before)
            if isinstance(step, ExtractStep) and state.journal is not None:
                state.journal.step_done(i)
        state.steps_completed += 1
    ctx.progress()


def _journaled(step: StepBase, index: int, state: RunState) -> bool:
    """A resumed run's extract step that finished before: not run again (a step that saves its rows
    for later steps runs again, as does every other step: they set up the page the next ones read)."""
    found = None if state.journal is None else state.journal.recovered
    return found is not None and index in found.done and isinstance(step, ExtractStep) and not step.save_as


# After these there is no page to ask for its telemetry, no answer to expect, or nothing ran.
_NO_PAGE = (FATAL - {ErrorCode.NAVIGATION_REDIRECT}) | {ErrorCode.TIMEOUT}


def _wants_telemetry(plan: Plan) -> bool:
    """A one-page extract is a read of a few ms with no "during"; anything longer gets the summary."""
    if plan.options.telemetry is not None:
        return plan.options.telemetry
    step = plan.steps[0] if len(plan.steps) == 1 else None
    return not (isinstance(step, ExtractStep) and step.paginate is None and step.scroll is None)


def _resolved(step: StepBase, variables: dict[str, Any]) -> StepBase:
    raw = msgspec.to_builtins(step)
    try:
        filled = substitute(raw, variables)
    except TemplateError as exc:
        ref = str(exc.args[0])
        head, _, rest = ref.partition(".")
        if head == "params":
            key = rest.partition(".")[0]
            raise TabPilotError(
                ErrorCode.INVALID_PARAMS,
                f"this step runs (its condition holds) and uses {{{{{ref}}}}}: pass {key!r} in params",
                data={"missing_params": [key]},
            ) from None
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"no value for {{{{{ref}}}}}") from None
    if filled == raw:
        return step
    try:
        resolved: StepBase = msgspec.convert(filled, STEP_UNION)
    except msgspec.ValidationError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"after filling in variables: {exc}") from None
    return resolved


async def _should_run(step: StepBase, ctx: Context) -> bool:
    if step.if_ is not None and not await _holds(step.if_, ctx):
        return False
    return step.unless is None or not await _holds(step.unless, ctx)


async def _login_bounce(plan: Plan, index: int, step: StepBase, exc: TabPilotError, ctx: Context) -> bool:
    """A navigate that landed on a login page, followed by steps guarded by a condition that holds
    there now (`if: {exists: "#id_username"}`): the workflow logs in itself, so it goes on."""
    if exc.code != ErrorCode.NAVIGATION_REDIRECT or not isinstance(step, NavigateStep):
        return False
    for later in plan.steps[index + 1 :]:
        if later.if_ is not None and await _holds(later.if_, ctx):
            landed = obj(exc.data).get("redirect_url") or ctx.state.url
            ctx.state.warn(
                {"message": f"steps[{index}] landed on {landed}; the steps guarded by `if` log in"}
            )
            return True
    return False


async def _holds(cond: Condition, ctx: Context) -> bool:
    try:
        selector = str(substitute(cond.exists or cond.visible or "", ctx.variables))
    except TemplateError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"no value for {{{{{exc.args[0]}}}}}") from None
    answer = await ctx.call(Count(id=0, selector=selector), 5_000)
    key = "count" if cond.exists is not None else "visible"
    return int(obj(answer).get(key) or 0) > 0


async def page_url(ctx: Context) -> str | None:
    """The URL of the run's tab, by the cheapest page command that reports it (it wants one field)."""
    probe = Extract(id=0, selector=":root", fields=[FieldPlan(name="_", take="text")], limit=0)
    url = obj(await ctx.call(probe, 5_000)).get("url")
    return url if isinstance(url, str) else None


async def _check_current_host(ctx: Context) -> None:
    """Before a replay touches a page it did not open itself, make sure the page is on a recorded host."""
    url = await page_url(ctx)
    assert ctx.allowed_hosts is not None
    if url is not None and host_of(url) not in ctx.allowed_hosts:
        raise TabPilotError(
            ErrorCode.DOMAIN_MISMATCH,
            f"the tab shows {host_of(url)!r} but the workflow was recorded on "
            f"{', '.join(sorted(ctx.allowed_hosts))}; navigate there first or pass allow_domain_change: true",
        )


def _keep(step: StepBase, index: int, output: Any, ctx: Context, rows: int) -> None:
    if step.save_as:
        ctx.variables[step.save_as] = output
    if isinstance(step, ExtractStep):
        ctx.state.extracts.append((index, step, ctx.state.url, rows))
        return
    if step.save_as or step.KEEP_OUTPUT:
        ctx.state.outputs[step.save_as or f"step{index}"] = output
