"""Recording a finished run as a workflow, and turning a replay request back into a plan."""

from __future__ import annotations

import copy
import datetime
import re
from typing import Any, cast

import msgspec

from ..wire.fields import explain
from ..wire.scrape import ReplayRequest, WorkflowRequest
from ..wire.secret_names import secret_name
from . import urlscrub
from .plan import Plan, build_plan, invalid, missing_params, params_needed
from .runner import Outcome
from .steps.fill import FillStep
from .steps.navigate import NavigateStep
from .steps.press import PressStep
from .steps.type_text import TypeStep
from .store import FORMAT, WorkflowDoc, WorkflowStore
from .template import TemplateError, references, substitute
from .urls import host_of

# Where each step that types keeps its text.
_TYPED: dict[type[Any], str] = {FillStep: "value", TypeStep: "text", PressStep: "key"}
# Shorter values are too common to replace wherever they occur.
_MIN_SCRUB = 3
_PATH = re.compile(r"^[A-Za-z_]\w*(\[\d+\])*(\.[A-Za-z_]\w*(\[\d+\])*)*$")


def record(plan: Plan, outcome: Outcome, today: datetime.date | None = None) -> WorkflowDoc:
    """The stored form of a finished run: its steps (templates kept), hosts, and non-secret params."""
    assert plan.name is not None
    day = (today or datetime.date.today()).strftime("%Y%m%d")
    steps: list[dict[str, Any]] = [msgspec.to_builtins(s) for s in plan.steps]
    hidden = {k for k in plan.params if secret_name(k)}  # not written to disk: a replay asks again
    literals: dict[str, str] = {}  # text typed into a secret field -> the parameter that replaces it
    for index in sorted(set(outcome.state.secret_steps)):
        field = _TYPED.get(type(plan.steps[index]))
        if field is None:
            continue
        text: str = getattr(plan.steps[index], field)
        if "{{" in text:
            # Typed from params: each one is a secret now, whatever it is called.
            hidden.update(r.split(".")[1] for r in references(text) if r.startswith("params."))
            continue
        # A literal typed into a secret field is never stored: it becomes a parameter.
        if text not in literals:
            taken = hidden | set(plan.params) | set(literals.values())
            literals[text] = "password" if "password" not in taken else f"secret_{index}"
        steps[index][field] = f"{{{{params.{literals[text]}}}}}"
    params = {k: v for k, v in plan.params.items() if k not in hidden}
    # The same secret anywhere else in the steps (a script, a URL) is replaced by its parameter too.
    known = {**{v: k for k in hidden if isinstance(v := plan.params.get(k), str)}, **literals}
    steps = [_scrub_steps(s, known) for s in steps]
    required = sorted(hidden | set(literals.values()))
    domains: set[str] = set()
    if outcome.state.first_url:
        domains.add(host_of(outcome.state.first_url))
    for step in plan.steps:
        if isinstance(step, NavigateStep):
            try:
                domains.add(host_of(substitute(step.url, {"params": plan.params})))
            except TemplateError:
                continue
    domains.discard("")
    workflow: dict[str, Any] = {
        "steps": steps,
        **msgspec.to_builtins({"error_recovery": plan.recovery, "options": plan.options}),
    }
    return WorkflowDoc(
        format=FORMAT,
        id=f"wf-{plan.name}-{day}",
        name=plan.name,
        workflow=urlscrub.scrub_value(workflow),  # no page's secret rides a recorded URL to disk
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        domains=sorted(domains),
        params=params,
        required_params=required,
    )


def _scrub_steps(value: Any, secrets: dict[str, str]) -> Any:
    """`value` with each secret text (longest first) replaced by a reference to its parameter."""
    if isinstance(value, str):
        for text in sorted(secrets, key=len, reverse=True):
            if len(text) >= _MIN_SCRUB and text in value:
                value = value.replace(text, f"{{{{params.{secrets[text]}}}}}")
        return value
    if isinstance(value, dict):
        return {k: _scrub_steps(v, secrets) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list):
        return [_scrub_steps(v, secrets) for v in cast(list[Any], value)]
    return value


def set_path(tree: dict[str, Any], path: str, value: Any) -> None:
    """Set `steps[0].url`-style paths in a workflow; the path must lead to an existing place."""
    if not _PATH.match(path):
        raise invalid(f'override_params: {path!r} is not a path like "steps[0].url"')
    tokens: list[str | int] = [
        int(idx) if idx else name for name, idx in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", path)
    ]
    node: Any = tree
    for i, token in enumerate(tokens):
        last = i == len(tokens) - 1
        if isinstance(token, int):
            items = cast(list[Any], node) if isinstance(node, list) else None
            if items is None or token >= len(items):
                raise invalid(f"override_params: {path!r}: no item [{token}] there")
            if last:
                items[token] = value
            node = items[token]
        else:
            fields = cast(dict[str, Any], node) if isinstance(node, dict) else None
            if fields is None:
                raise invalid(f"override_params: {path!r}: {token!r} is not inside an object")
            if last:
                fields[token] = value
            elif token not in fields:
                raise invalid(f"override_params: {path!r}: no {token!r} there")
            node = fields.get(token)


def replay_plan(req: ReplayRequest, store: WorkflowStore) -> Plan:
    """The plan of `operation: replay`: the stored workflow with overrides, params and the domain lock."""
    if not req.workflow_id:
        raise invalid('operation replay needs workflow_id (observe {what: "workflows"} lists them)')
    doc = store.get(req.workflow_id)
    tree: dict[str, Any] = {"params": dict(doc.params), **copy.deepcopy(doc.workflow)}
    for path, value in (req.override_params or {}).items():
        set_path(tree, path, value)
    params = {**tree.pop("params"), **(req.params or {})}
    if req.output_schema is not None:  # the caller's schema replaces each extract step's own
        steps: list[Any] = tree.get("steps") or []
        extracts = [cast(dict[str, Any], s) for s in steps if isinstance(s, dict)]
        extracts = [s for s in extracts if s.get("type") == "extract"]
        if not extracts:
            raise invalid(f"output_schema: workflow {doc.id} has no extract step to check")
        for step in extracts:
            step["output_schema"] = req.output_schema
    # Only steps that always run need their params now; a guarded login step asks when it runs.
    listed: list[Any] = tree.get("steps") or []
    raw_steps = [cast(dict[str, Any], s) for s in listed if isinstance(s, dict)]
    needed = params_needed(raw_steps)
    missing = [k for k in doc.required_params if k not in params and k in needed]
    if missing:
        stored = Plan(
            operation="replay", steps=[], replayed_from=doc.id, allowed_hosts=frozenset(doc.domains)
        )
        raise missing_params(stored, missing, f"workflow {doc.id}'s steps (secrets are never stored)")
    if req.options.telemetry is not None:  # the caller's wish to see the run's account, not the workflow's
        tree["options"] = {**(tree.get("options") or {}), "telemetry": req.options.telemetry}
    value = {"operation": "workflow", **tree, "params": params, "tab_id": req.tab_id}
    try:
        workflow = msgspec.convert(value, WorkflowRequest)
    except msgspec.ValidationError as exc:
        raise invalid(f"replay of {doc.id}: {explain(exc, WorkflowRequest, value)}") from None
    plan = build_plan(workflow)
    plan.replayed_from = doc.id
    plan.secrets += [v for k in doc.required_params if isinstance(v := params.get(k), str)]
    if not req.allow_domain_change and doc.domains:
        plan.allowed_hosts = frozenset(doc.domains)
    return plan


def listing(store: WorkflowStore) -> list[dict[str, Any]]:
    """The stored workflows as `observe workflows` lists them, most recently used first."""
    docs = sorted(store.all(), key=lambda d: -d.last_used)
    return [
        {
            "workflow_id": d.id,
            "name": d.name,
            "created": d.created,
            "domains": d.domains,
            "steps": len(d.workflow.get("steps") or []),
            "required_params": d.required_params,
        }
        for d in docs
    ]


def validate(doc: WorkflowDoc) -> None:
    """Check an imported workflow as strictly as a request (steps, schemas, variables)."""
    params = {**doc.params, **dict.fromkeys(doc.required_params, "")}
    value = {"operation": "workflow", **doc.workflow, "params": params}
    try:
        req = msgspec.convert(value, WorkflowRequest)
    except msgspec.ValidationError as exc:
        raise invalid(f"workflow {doc.id}: {explain(exc, WorkflowRequest, value)}") from None
    build_plan(req)
