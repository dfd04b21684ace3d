"""Actions declared from their wire types: a command's fields (or a request's) are the action's arguments.

An element action (click, fill, ...) sends one extension command. Restating the command's fields in a
function signature says everything twice and lets the two drift; here the struct's fields are read
(names, types, which are required) and the bridge adds only what the agent needs beyond the wire's
type: narrower choices, bounds and a description (`refine`, one entry per field name, so the same
field reads the same in every action).
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, cast

import msgspec
from pydantic import Strict, WithJsonSchema
from typing_extensions import is_typeddict

from ...wire import messages as m
from ...wire.errors import ErrorCode, TabPilotError
from ...wire.fields import explain
from .base import Call
from .composite import Action, compact_schema, split

# Every command has these; they come last in the action's arguments, after what says what to do.
_LAST = ("tab_id", "timeout_ms")

Run = Callable[..., Awaitable[Any]]  # (call, command, **extra) -> result
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"})


def shape(annotation: Any) -> Any:
    """What a type means on the wire, without choices, bounds or descriptions: `Literal["a"]` is str,
    `X | None` is X, a typed dict or struct is the set of its field names."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return shape(args[0])
    if origin in (Union, UnionType):
        kinds = {shape(a) for a in args if a is not NoneType}
        return kinds.pop() if len(kinds) == 1 else frozenset(kinds)
    if origin is Literal:
        return cast(Any, type(args[0]))
    if origin is list:
        return ("list", shape(args[0]))
    if is_typeddict(annotation):
        return ("object", frozenset(typing.get_type_hints(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        struct: type[msgspec.Struct] = annotation
        return ("object", frozenset(f.encode_name for f in msgspec.structs.fields(struct)))
    return cast(Any, annotation)


def wire_fields(struct: type[m.Command]) -> dict[str, tuple[Any, bool]]:
    """The command's fields an agent may give: name -> (type, required); `id` is the bridge's."""
    return {
        f.encode_name: (f.type, f.required) for f in msgspec.structs.fields(struct) if f.encode_name != "id"
    }


def from_struct(
    struct: type[m.Command],
    summary: str,
    run: Run,
    result: Any,
    *,
    refine: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
    fixed: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Action:
    """The action that sends `struct` built from its arguments and passes it to `run`.

    `refine` gives a field the type the agent sees (it must mean the same on the wire: TypeError if
    not); `extra` adds the bridge's own parameters, handed to `run` by name; `fixed` sets fields the
    action decides itself (check sets `checked`); `defaults` replaces a wire default where the action
    needs another (a screenshot's time limit). The action is named after the command's tag."""
    extra = dict(extra or {})
    fixed = dict(fixed or {})
    defaults = dict(defaults or {})
    fields = {k: v for k, v in wire_fields(struct).items() if k not in fixed}
    for key, annotation in refine.items():
        if key in fields and shape(annotation) != shape(fields[key][0]):
            raise TypeError(
                f"{struct.__name__}.{key}: {annotation} does not mean {fields[key][0]} on the wire"
            )
    required = [k for k, (_t, req) in fields.items() if req]
    middle = [k for k in fields if k not in required and k not in _LAST]
    order = [*required, *middle, *(k for k in _LAST if k in fields)]
    params = {k: split(refine.get(k, fields[k][0])) for k in order}
    params.update({k: split(t) for k, t in extra.items()})

    async def fn(call: Call, **kwargs: Any) -> Any:
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in extra}
        value = {**defaults, **kwargs, **fixed, "id": 0}
        try:
            # convert, not the constructor: a field that holds objects (fill_form's fields) arrives as dicts.
            command = msgspec.convert(value, struct)
        except msgspec.ValidationError as exc:  # a bound only the wire type holds (timeout_ms's)
            message = f"{name or tag}: {explain(exc, struct, value)}"
            raise TabPilotError(ErrorCode.INVALID_PARAMS, message) from None
        return await run(call, command, **given)

    tag = struct.__struct_config__.tag
    assert isinstance(tag, str)
    stated = {
        f.encode_name: f.default
        for f in msgspec.structs.fields(struct)
        if f.encode_name in params and f.default not in (None, msgspec.NODEFAULT)
    }
    stated.update({k: v for k, v in defaults.items() if k in params})
    return Action(
        name or tag, fn, summary, params, frozenset(required), result, command=struct, defaults=stated
    )


def from_union(
    members: Sequence[type[msgspec.Struct]],
    summary: str,
    run: Run,
    result: Any,
    *,
    name: str,
    extra: Mapping[str, Any] | None = None,
) -> Action:
    """The action whose arguments are the fields of a tagged union of structs (the scrape request):
    its tag, then every member's fields, each described by the JSON schema msgspec writes for it.
    `run` gets the given fields as one JSON-like object (the wire type reads it) and `extra`'s by name.
    A field in several members must mean the same in each (TypeError if not)."""
    extra = dict(extra or {})
    tag_field = members[0].__struct_config__.tag_field
    assert isinstance(tag_field, str)
    fields: dict[str, Any] = {}
    for member in members:
        for f in msgspec.structs.fields(member):
            known = fields.setdefault(f.encode_name, f.type)
            if shape(known) != shape(f.type):
                raise TypeError(f"{member.__name__}.{f.encode_name}: {f.type} is {known} in another member")
    names = [{f.encode_name for f in msgspec.structs.fields(m)} for m in members]
    common: set[str] = set[str].intersection(*names)
    order = [k for k in fields if k not in common] + [k for k in fields if k in common and k not in _LAST]
    order += [k for k in _LAST if k in fields]
    schemas = field_schemas(members)
    tags: Any = tuple(m.__struct_config__.tag for m in members)
    params = {tag_field: split(cast(Any, Literal)[tags])}
    # Strict: the SDK's validation must not take what the wire refuses ("yes" for true).
    params.update({k: (_plain(fields[k]), (WithJsonSchema(schemas[k]), Strict())) for k in order})
    params.update({k: split(t) for k, t in extra.items()})

    async def fn(call: Call, **kwargs: Any) -> Any:
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in extra}
        return await run(call, kwargs, **given)

    return Action(name, fn, summary, params, frozenset({tag_field}), result)


def field_schemas(members: Sequence[type[msgspec.Struct]]) -> dict[str, dict[str, Any]]:
    """Each field's JSON schema as msgspec writes it for `members`, a nested struct written in place,
    trimmed as the SDK's schemas are (compact_schema), and without the structs' docstrings (the
    agent reads the fields' own descriptions)."""
    _, defs = msgspec.json.schema_components(members, ref_template="{name}")

    def inline(node: Any, names: bool = False) -> Any:
        if isinstance(node, list):
            return [inline(x) for x in cast(list[Any], node)]
        if not isinstance(node, dict):
            return node
        items = cast(dict[str, Any], node).items()
        if names:  # a map of property names, not a schema
            return {k: inline(v) for k, v in items}
        out = {k: inline(v, names=k == "properties") for k, v in items if k != "$ref"}
        ref: Any = cast(dict[str, Any], node).get("$ref")
        if isinstance(ref, str):
            struct = {k: v for k, v in defs[ref].items() if k not in ("title", "description")}
            out = {**inline(struct), **out}
        if out.get("additionalProperties") is False:  # every object's fields are listed: it takes no other
            del out["additionalProperties"]
        if out.get("required") == []:
            del out["required"]
        # Bounds are checked on the wire, whose message names the field and the limit; listed here they
        # would cost every request's tokens.
        return {k: v for k, v in out.items() if k not in _BOUNDS}

    out: dict[str, dict[str, Any]] = {}
    for member in members:
        props: dict[str, Any] = defs[member.__name__]["properties"]
        for key, schema in props.items():
            out.setdefault(key, compact_schema(inline(schema)))
    return out


def _plain(annotation: Any) -> Any:
    """The Python type the SDK validates a field's argument with: the field's type without None and
    constraints, a struct as a plain object (its fields are checked on the wire, by msgspec)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return _plain(args[0])
    if origin in (Union, UnionType):
        rest = [a for a in args if a is not NoneType]
        return _plain(rest[0]) if len(rest) == 1 else annotation
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return cast(Any, dict[str, Any])
    if origin is list:
        return list[_plain(args[0])]
    if origin is dict:
        return dict[_plain(args[0]), _plain(args[1])]
    return cast(Any, annotation)
