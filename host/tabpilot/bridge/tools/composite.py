"""Composite tools: one MCP tool per group, whose selector (`action`, `what`) picks an action function.

An action is one typed async function `(call, **params) -> result`, listed in its tool's package
(`interact/__init__.py`, ...), or an `Action` built another way (from a wire struct: `fromwire`). Its
parameters join the tool's flat input schema (optional there; this module checks what each action
requires) and its return type joins the tool's output schema, so adding an action is one line in its
tool's list.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import NoneType, UnionType
from typing import Annotated, Any, Union, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import ConfigDict, Field, JsonValue, RootModel, ValidatorFunctionWrapHandler, WrapValidator

from ...wire.echo import clip, nearest, show, unknown_field
from ...wire.errors import ErrorCode, TabPilotError
from ...wire.fields import type_name
from . import outschema
from .ask import NeedInput
from .base import Backend, Call, Encoded, Image, error, ok
from .strict import MAX_DEPTH, nested_names, stray_field, too_deep

log = logging.getLogger("tabpilot.bridge")

ActionFn = Callable[..., Awaitable[Any]]


def _null_is_absent(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    return None if value is None else handler(value)


_NULL_IS_ABSENT = WrapValidator(_null_is_absent)
_BROWSER_DOC = "Browser id, label or profile; only when several are connected."


@dataclass(frozen=True)
class Action:
    """One registered action: its function, one-line summary, parameters and result type."""

    name: str
    fn: ActionFn
    summary: str
    params: Mapping[str, tuple[Any, tuple[Any, ...]]]  # name -> (type without None, Annotated metadata)
    required: frozenset[str]
    result: Any
    command: Any = None  # the wire command it sends, when it is declared from one (fromwire)
    defaults: Mapping[str, Any] = field(default_factory=dict[str, Any])  # what an omitted parameter means


def action_of(fn: ActionFn) -> Action:
    """The action a typed function declares: its name, and its parameters after the first (the Call)."""
    hints = typing.get_type_hints(fn, include_extras=True)
    sig = inspect.signature(fn)
    params: dict[str, tuple[Any, tuple[Any, ...]]] = {}
    required: set[str] = set()
    defaults: dict[str, Any] = {}
    for param in list(sig.parameters.values())[1:]:  # the first one receives the Call
        params[param.name] = split(hints[param.name])
        if param.default is inspect.Parameter.empty:
            required.add(param.name)
        elif param.default is not None:
            defaults[param.name] = param.default
    summary = " ".join((inspect.getdoc(fn) or "").split())
    result = hints["return"]
    if typing.get_origin(result) in (Encoded, Image):
        result = typing.get_args(result)[0]
    return Action(fn.__name__, fn, summary, params, frozenset(required), result, defaults=defaults)


def split(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`Annotated[T | None, meta...]` -> (T, (meta...))."""
    meta: tuple[Any, ...] = ()
    if typing.get_origin(annotation) is Annotated:
        annotation, *rest = typing.get_args(annotation)
        meta = tuple(rest)
    if typing.get_origin(annotation) in (Union, UnionType):
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        annotation = args[0] if len(args) == 1 else Union[tuple(args)]  # noqa: UP007
    return annotation, meta


class CompositeTool:
    """A tool whose `selector` argument names one of its registered actions."""

    def __init__(
        self,
        name: str,
        selector: str,
        doc: str,
        actions: Sequence[ActionFn | Action],
        *,
        param_docs: Mapping[str, str] | None = None,
        briefs: Mapping[str, str] | None = None,
        annotations: ToolAnnotations | None = None,
    ) -> None:
        self.name = name
        self.selector = selector
        self.doc = doc
        self.param_docs = dict(param_docs or {})
        self.briefs = dict(briefs or {})
        self.annotations = annotations
        self.actions: dict[str, Action] = {}
        self.schema: dict[str, Any] = {}  # the input schema, once built (what check() reads)
        self.published: dict[str, Any] = {}  # the same as tools/list shows it (help says the rest)
        self.docs: dict[str, str] = {}  # each parameter's description, once built (help reads them)
        self.bounds: dict[str, str] = {}  # each bounded parameter's limits, once built
        for act in actions:  # in the order the agent reads them
            self.add(act if isinstance(act, Action) else action_of(act))

    def add(self, act: Action) -> None:
        """Add an action; a parameter it shares with another action must have the same type there."""
        if act.name in self.actions:
            raise ValueError(f"{self.name} already has a {self.selector} {act.name!r}")
        for pname, (ptype, _meta) in act.params.items():
            for other in self.actions.values():
                if pname in other.params and other.params[pname][0] != ptype:
                    raise TypeError(f"{self.name}: parameter {pname!r} has different types in two actions")
        self.actions[act.name] = act

    def brief(self, name: str) -> str:
        """What the action is for, in a line (its summary when no shorter line is given)."""
        return self.briefs.get(name) or self.actions[name].summary

    def description(self) -> str:
        """The tool's docstring plus one line per action: what the agent reads on every request (kept
        terse: the whole tool list is read on every request; each action's arguments are in help)."""
        lines = [self.doc, *(f"- {a.name}: {self.brief(a.name)}" for a in self.actions.values())]
        return "\n".join(lines)

    def arguments(self, name: str) -> dict[str, str]:
        """Each parameter of the action as help shows it: its type, whether required, its default, and
        what it is for."""
        act = self.actions[name]
        if not self.docs:
            self.build(Backend(cast(Any, None)))  # the descriptions come from the schema the SDK writes
        out: dict[str, str] = {}
        for pname, (ptype, _meta) in act.params.items():
            kind = type_name(ptype) + self.bounds.get(pname, "")
            if pname in act.required:
                kind += " (required)"
            elif pname in act.defaults:
                kind += f" = {json.dumps(act.defaults[pname])}"
            out[pname] = f"{kind}: {_own_doc(_meta) or self.docs.get(pname, '')}"
        out["browser"] = f"str: {_BROWSER_DOC}"
        return out

    def _signature(self) -> inspect.Signature:
        kw = inspect.Parameter.KEYWORD_ONLY
        names = list(self.actions)
        # Typed str (not Literal) so an unknown name reaches dispatch and gets `unknown_action`.
        selector = Annotated[str, Field(json_schema_extra={"enum": list[JsonValue](names)})]
        params = [inspect.Parameter(self.selector, kw, annotation=selector)]
        seen: set[str] = set()
        for act in self.actions.values():
            for pname, (ptype, meta) in act.params.items():
                if pname in seen:
                    continue
                seen.add(pname)
                extra = (Field(description=self.param_docs[pname]),) if pname in self.param_docs else ()
                # Typed T, not `T | None`: the SDK JSON-decodes string arguments of any other type, which
                # would turn the script "null" into None. Null and absent both mean "not given".
                annotation = Annotated[(ptype, *meta, *extra, _NULL_IS_ABSENT)]
                params.append(inspect.Parameter(pname, kw, default=None, annotation=annotation))
        browser = Annotated[str, Field(description=_BROWSER_DOC), _NULL_IS_ABSENT]
        params.append(inspect.Parameter("browser", kw, default=None, annotation=browser))
        params.append(inspect.Parameter("ctx", kw, annotation=Context))
        return inspect.Signature(params, return_annotation=Annotated[CallToolResult, self._output_model()])

    def _output_model(self) -> Any:
        results = list(dict.fromkeys(a.result for a in self.actions.values()))
        if len(results) == 1:
            return results[0]
        root: Any = Union[tuple(results)]  # noqa: UP007
        # An output schema must be an object at its root; every action returns one. Declared as one
        # class, not RootModel[...] subclassed: pydantic builds each model class's validator in full.
        config = ConfigDict(json_schema_extra={"type": "object"})
        body = {"__annotations__": {"root": root}, "model_config": config, "__module__": __name__}
        return type(f"{self.name}Result", (RootModel,), body)

    def build(self, backend: Backend) -> Tool:
        """The MCP tool: a function whose signature is the flat union of the actions' parameters."""

        async def run(**kwargs: Any) -> CallToolResult | InputRequiredResult:
            ctx: Context[Any, Any] = kwargs.pop("ctx")
            return await self.dispatch(backend, kwargs, ctx)

        sig = self._signature()
        run.__signature__ = sig  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()}
        run.__annotations__["return"] = sig.return_annotation
        run.__name__ = run.__qualname__ = self.name
        tool = Tool.from_function(
            run, name=self.name, description=self.description(), annotations=self.annotations
        )
        schema = compact_schema(tool.parameters)
        # Descriptions and bounds are read in help, one call away: on every request they would cost the
        # most. The SDK checks the bounds from the signature, not from the published schema.
        props: dict[str, Any] = schema.get("properties", {})
        self.docs = {k: str(v.get("description", "")) for k, v in props.items()} | self.param_docs
        self.bounds = {k: _bounds(v) for k, v in props.items() if _bounds(v)}
        self.schema = schema
        tool.parameters = self.published = published(schema)
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = outschema.flatten(tool.fn_metadata.output_schema)
        return tool

    async def dispatch(
        self, backend: Backend, args: dict[str, Any], ctx: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Run the selected action; every failure the agent can act on becomes an is_error result."""
        name = args.pop(self.selector)
        browser = args.pop("browser", None)
        act = self.actions.get(name)
        if act is None:
            return error(self._unknown_action(name))
        missing = sorted(p for p in act.required if args.get(p) is None)
        if missing:
            return error(
                TabPilotError(ErrorCode.INVALID_PARAMS, f"{self.selector}={name} needs {', '.join(missing)}")
            )
        kwargs = {k: v for k, v in args.items() if k in act.params and v is not None}
        try:
            return ok(await act.fn(Call(backend, browser, ctx), **kwargs))
        except NeedInput as need:  # the person is asked through the client, which then calls again
            return need.result
        except TabPilotError as exc:
            log.info("%s %s=%s failed: %s", self.name, self.selector, name, exc.code)
            return error(exc)
        except Exception as exc:
            log.exception("%s %s=%s crashed", self.name, self.selector, name)
            return error(
                TabPilotError(
                    ErrorCode.INTERNAL_ERROR,
                    f"{self.name} {self.selector}={name} failed unexpectedly ({type(exc).__name__}: {exc}); "
                    "the bridge log has the details",
                )
            )

    def _unknown_action(self, name: str) -> TabPilotError:
        valid = list(self.actions)
        guess = nearest(name, valid)
        hint = f'; did you mean "{guess}"?' if guess else ""
        return TabPilotError(
            ErrorCode.UNKNOWN_ACTION,
            f"{self.name} has no {self.selector} {show(name)}{hint} Use one of: {', '.join(valid)}",
            data={"valid": valid},
        )

    def check(self, args: Mapping[str, Any]) -> TabPilotError | None:
        """What is wrong with the raw `args` that the input schema's validation would let pass: an
        unknown action, or a field this action (or an object inside one of its fields) does not take."""
        name = args.get(self.selector)
        if not isinstance(name, str):
            return None  # missing or not a string: the input schema says so
        act = self.actions.get(name)
        if act is None:
            return self._unknown_action(name)
        props: dict[str, Any] = self.schema.get("properties", {})
        defs: dict[str, Any] = self.schema.get("$defs", {})
        for key, value in args.items():
            if key in act.params:
                if isinstance(value, str) and act.params[key][0] is not str:
                    value = _as_sdk_reads(value)
                    if too_deep(value):
                        return _refused(f"{key} nests deeper than {MAX_DEPTH} levels", key)
                problem = stray_field(value, props.get(key), defs, key)
                if problem is not None:
                    return _refused(f"{self.name} {self.selector}={name}: {problem[0]}", problem[1])
            elif key not in (self.selector, "browser") and not (value is None and key in props):
                return _refused(self._stray(key, act), key)  # null means "not given", as for any field
        return None

    def _stray(self, key: str, act: Action) -> str:
        where = f"{self.name} {self.selector}={act.name}"
        owners = [a.name for a in self.actions.values() if key in a.params]
        if owners:
            return f"{where} does not take {show(key)} (it is for {self.selector}={', '.join(owners)})"
        props: dict[str, Any] = self.schema.get("properties", {})
        defs: dict[str, Any] = self.schema.get("$defs", {})
        inner = [p for k in act.params for p in nested_names(props.get(k), defs, key, k)]
        if inner:
            return f'{show(key)} is not a field of {where}; did you mean "{inner[0]}"?'
        return unknown_field(key, [self.selector, *act.params, "browser"], where)


def _as_sdk_reads(text: str) -> Any:
    """A string argument for a non-string parameter, as the SDK reads it (JSON, if it parses)."""
    if not text.startswith(("{", "[")):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # left to the input schema's validation, as the SDK does
        return text


def _refused(message: str, key: str) -> TabPilotError:
    return TabPilotError(ErrorCode.INVALID_PARAMS, message, data={"field": clip(key)})


_UNPUBLISHED = frozenset(
    {"description", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"}
)


def published(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` as tools/list shows it: without descriptions and bounds, at any depth, and an object
    defined once for several places (`$defs`, a form field) as a plain object."""

    def walk(node: Any, names: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in typing.cast(list[Any], node)]
        if not isinstance(node, dict):
            return node
        items = typing.cast(dict[str, Any], node).items()
        if names:  # a map of property names, not a schema
            return {k: walk(v) for k, v in items}
        if "$ref" in node:
            return {"type": "object"}
        drop = _UNPUBLISHED | {"$defs"}
        return {k: walk(v, names=k == "properties") for k, v in items if k not in drop}

    return walk(schema)


def _own_doc(meta: tuple[Any, ...]) -> str:
    """The description a parameter carries itself (a Field's, or the wire schema's it is published with):
    what it means for this action, where the tool's shared line covers every action taking it."""
    for item in meta:
        doc = getattr(item, "description", None)
        if doc is None and isinstance(getattr(item, "json_schema", None), dict):
            doc = item.json_schema.get("description")
        if isinstance(doc, str) and doc:
            return doc
    return ""


def _bounds(prop: dict[str, Any]) -> str:
    """A parameter's limits as help shows them: ` 1..3`, ` >= 0`, ` 1..100 items`."""
    low = prop.get("minimum", prop.get("minItems"))
    high = prop.get("maximum", prop.get("maxItems"))
    items = " items" if "minItems" in prop or "maxItems" in prop else ""
    if low is not None and high is not None:
        return f" {low}..{high}{items}"
    if low is not None:
        return f" >= {low}{items}"
    if high is not None:
        return f" <= {high}{items}"
    return ""


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop what costs tokens and tells the agent nothing: titles, `default: null`, and `anyOf [T, null]`
    with `default: null` (not being required already says a field is optional)."""

    def walk(node: Any, names: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in typing.cast(list[Any], node)]
        if not isinstance(node, dict):
            return node
        items = typing.cast(dict[str, Any], node).items()
        if names:  # a map of property or definition names, not a schema
            return {k: walk(v) for k, v in items}
        out = {k: walk(v, names=k in ("properties", "$defs")) for k, v in items if k != "title"}
        if "default" in out and out["default"] is None and "anyOf" not in out:
            del out["default"]
        any_of = out.get("anyOf")
        if isinstance(any_of, list) and "default" in out and out["default"] is None:
            rest = [x for x in typing.cast(list[Any], any_of) if x != {"type": "null"}]
            if len(rest) == 1 and isinstance(rest[0], dict):
                del out["anyOf"], out["default"]
                out = {**typing.cast(dict[str, Any], rest[0]), **out}
        return out

    return walk(schema)
