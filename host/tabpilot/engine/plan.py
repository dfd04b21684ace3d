"""From a request (JSON) to a checked plan: typed steps, variables that exist, limits respected."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import msgspec

from ..wire.echo import nearest, show
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.fields import explain
from ..wire.scrape import (
    MAX_STEPS,
    ErrorRecovery,
    ExtractRequest,
    Options,
    ReplayRequest,
    ScrapeRequest,
    SuggestRequest,
    WorkflowRequest,
)
from ..wire.scrape import parse_request as parse_request  # the request, read before it is planned
from ..wire.secret_names import secret_name
from .schema import SchemaError
from .steps import STEP_UNION, StepBase, decode_step, step_types
from .steps.extract import ExtractStep
from .steps.suggest import SuggestStep
from .template import references


@dataclass
class Plan:
    """A validated scrape: what the runner executes, and what a recording keeps."""

    operation: str
    steps: list[StepBase]
    recovery: ErrorRecovery = field(default_factory=ErrorRecovery)
    options: Options = field(default_factory=Options)
    tab_id: int | None = None
    params: dict[str, Any] = field(default_factory=dict[str, Any])
    name: str | None = None
    record: bool = False
    replayed_from: str | None = None
    allowed_hosts: frozenset[str] | None = None
    # The strategy cache (engine/cache.py): the strategy rerun or repaired, whether this run reruns it
    # as stored (so it can go stale), the row identity for aggregation, and the aggregate's summary.
    extraction_id: str | None = None
    cached: bool = False
    key_fields: list[str] | None = None
    aggregate: str | None = None
    # The values of secret params (named so, or a replay's that were never stored: the person gave
    # them): scrubbed from whatever the run answers or keeps, whichever field they were typed into.
    secrets: list[str] = field(default_factory=list[str])

    def label(self) -> str:
        """How this run is named to a second caller that finds the tab busy."""
        return self.replayed_from or (f"wf-{self.name}" if self.name else self.operation)


def invalid(message: str) -> TabPilotError:
    """The agent's request is wrong in a way it can fix."""
    return TabPilotError(ErrorCode.INVALID_PARAMS, message)


def build_plan(req: ScrapeRequest) -> Plan:
    """Check an extract or workflow request and compile it (replay requests are resolved first)."""
    match req:
        case ExtractRequest():
            steps: list[StepBase] = [_extract_step(req)]
        case WorkflowRequest():
            if req.output_schema is not None:
                raise invalid("output_schema of a workflow goes on its extract steps (or on a replay)")
            steps = _workflow_steps(req.steps)
        case SuggestRequest():
            steps = [_suggest_step(req)]
        case ReplayRequest():
            raise invalid("resolve a replay into its workflow first")
    if req.record and not req.name:
        raise invalid('record: true needs a name (letters, digits, - and _), e.g. "daily_metrics"')
    if req.name is not None and not _valid_name(req.name):
        raise invalid(f"name {show(req.name)}: use 1-64 letters, digits, - and _")
    params = dict(req.params or {})
    check_references(steps, params)
    options = req.options
    if req.operation == "suggest" and options.telemetry is None:
        options = msgspec.structs.replace(options, telemetry=False)  # one quick read: nothing "during"
    return Plan(
        operation=req.operation,
        steps=steps,
        recovery=req.error_recovery,
        options=options,
        tab_id=req.tab_id,
        params=params,
        name=req.name,
        record=req.record,
        secrets=[v for k, v in params.items() if secret_name(k) and isinstance(v, str)],
    )


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= 64 and all(c.isascii() and (c.isalnum() or c in "-_") for c in name)


def _extract_step(req: ExtractRequest) -> ExtractStep:
    if req.use_cache or (req.extraction_id is not None and req.script is None and not req.selector):
        raise invalid("resolve a cached strategy (extraction_id, use_cache) with the strategy cache first")
    if req.script is None and (not req.selector or not req.schema):
        raise invalid(
            'operation extract needs selector (the rows) and schema (field -> "css | op"), or a script'
        )
    o = req.options
    try:
        return ExtractStep(
            selector=req.selector,
            schema=req.schema,
            script=req.script,
            css_selector=req.css_selector,
            output_schema=req.output_schema,
            wait_for=o.wait_for,
            paginate=o.paginate,
            scroll=o.scroll,
            limit=o.limit,
            where=o.where,
            virtual=o.virtual,
            timeout_ms=o.timeout_ms,
            follow=req.follow,
            key_fields=req.key_fields,
        )
    except SchemaError as exc:
        raise invalid(f"schema: {exc}") from None
    except ValueError as exc:
        raise invalid(f"extract: {exc}") from None


def _suggest_step(req: SuggestRequest) -> SuggestStep:
    if req.record:  # the struct takes no extraction fields; a suggestion is not a workflow either
        raise invalid("operation suggest takes query and css_selector, not record")
    try:
        wanted = {"query": req.query, "css_selector": req.css_selector, "timeout_ms": req.options.timeout_ms}
        args = {k: v for k, v in wanted.items() if v is not None}
        return msgspec.convert({"type": "suggest", **args}, SuggestStep)  # checks the limits
    except msgspec.ValidationError as exc:
        raise invalid(f"suggest: {exc}") from None


def _workflow_steps(raw: list[Any] | None) -> list[StepBase]:
    if not raw:
        raise invalid(f'operation workflow needs steps: a list of {{"type": ...}}, types: {step_types()}')
    if len(raw) > MAX_STEPS:
        raise invalid(f"a workflow has at most {MAX_STEPS} steps; this one has {len(raw)}")
    steps: list[StepBase] = []
    for i, value in enumerate(raw):
        kind: Any = cast(dict[str, Any], value).get("type") if isinstance(value, dict) else None
        if isinstance(kind, str) and kind not in step_types():
            guess = nearest(kind, step_types())
            hint = f'; did you mean "{guess}"?' if guess else ""
            raise invalid(
                f"steps[{i}]: no step type {show(kind)}{hint} (step types: {', '.join(step_types())})"
            )
        try:
            steps.append(decode_step(value))
        except msgspec.ValidationError as exc:
            raise invalid(
                f"steps[{i}]: {explain(exc, STEP_UNION, value)} (step types: {', '.join(step_types())})"
            ) from None
        except TabPilotError as exc:  # invalid_output_schema keeps its code; the message names the step
            raise TabPilotError(exc.code, f"steps[{i}]: {exc.message}", data=exc.data) from None
    return steps


def check_references(steps: list[StepBase], params: dict[str, Any]) -> None:
    """Every `{{x}}` names a param given or the `save_as` of an earlier step. A step with an `if` or
    `unless` may not run (login steps after a session expired): its params are asked for only if it does."""
    saved: set[str] = set()
    for i, step in enumerate(steps):
        for ref in references(msgspec.to_builtins(step)):
            head, _, rest = ref.partition(".")
            if head == "params":
                key = rest.partition(".")[0]
                if key not in params and not conditional(step):
                    raise invalid(f"steps[{i}] uses {{{{{ref}}}}} but params has no {key!r}")
            elif head not in saved:
                raise invalid(f"steps[{i}] uses {{{{{ref}}}}}: no earlier step has save_as {head!r}")
        if step.save_as:
            saved.add(step.save_as)


def conditional(step: StepBase) -> bool:
    """Whether the step runs only when a condition holds."""
    return step.if_ is not None or step.unless is not None


def params_needed(steps: list[dict[str, Any]]) -> set[str]:
    """The params the steps that always run use (a stored workflow's steps, as JSON)."""
    needed: set[str] = set()
    for raw in steps:
        if "if" in raw or "unless" in raw:
            continue
        for ref in references(raw):
            head, _, rest = ref.partition(".")
            if head == "params":
                needed.add(rest.partition(".")[0])
    return needed


def missing_params(plan: Plan, missing: list[str], what: str) -> TabPilotError:
    """The refusal of a run that lacks params: which ones, and which of them are secrets the agent must
    ask the person for (a replay's params that were not stored are its secrets)."""
    secret = [k for k in missing if secret_name(k) or plan.replayed_from is not None]
    ask = (
        f"; {', '.join(map(repr, secret))} {'is a secret' if len(secret) == 1 else 'are secrets'}: ask the "
        "person for it (never take it from a page), or use a client with MCP elicitation, which TabPilot "
        "asks itself"
        if secret
        else ""
    )
    return TabPilotError(
        ErrorCode.INVALID_PARAMS,
        f"{what} use params {missing}: pass them in params{ask}",
        data={"missing_params": missing, "secret_params": secret, "sites": sorted(plan.allowed_hosts or ())},
    )


def params_ahead(plan: Plan, index: int, params: dict[str, Any]) -> None:
    """Before a guarded step runs (its condition holds): the params it and every later step under the
    same guard use must all be at hand, so a login is never left half typed (the username in, then a
    refusal for the password)."""
    step = plan.steps[index]
    guard = (step.if_, step.unless)
    missing: list[str] = []
    for later in plan.steps[index:]:
        if (later.if_, later.unless) != guard:
            continue
        for ref in references(msgspec.to_builtins(later)):
            head, _, rest = ref.partition(".")
            key = rest.partition(".")[0]
            if head == "params" and key not in params and key not in missing:
                missing.append(key)
    if missing:
        raise missing_params(
            plan, missing, f"steps[{index}] and the later steps under its condition run now and"
        )
