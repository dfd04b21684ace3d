"""Actions declared from their wire struct: the command's fields are the action's arguments.

An element action (click, fill, ...) sends one extension command. Restating the command's fields in a
function signature says everything twice and lets the two drift; here the struct's fields are read
(names, types, which are required) and the bridge adds only what the agent needs beyond the wire's
type: narrower choices, bounds and a description (`refine`, one entry per field name, so the same
field reads the same in every action).
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Mapping
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, cast

import msgspec
from typing_extensions import is_typeddict

from ...wire import messages as m
from .base import Call
from .composite import Action, split

# Every command has these; they come last in the action's arguments, after what says what to do.
_LAST = ("tab_id", "timeout_ms")

Run = Callable[..., Awaitable[Any]]  # (call, command, **extra) -> result


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
        # convert, not the constructor: a field that holds objects (fill_form's fields) arrives as dicts.
        command = msgspec.convert({**defaults, **kwargs, **fixed, "id": 0}, struct)
        return await run(call, command, **given)

    tag = struct.__struct_config__.tag
    assert isinstance(tag, str)
    return Action(name or tag, fn, summary, params, frozenset(required), result, command=struct)
