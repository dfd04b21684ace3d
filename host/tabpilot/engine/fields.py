"""What a request's objects may hold, read from their typed definitions: an agent that guessed a field
name learns the allowed ones from the error, and `observe what=help` lists each step's fields."""

from __future__ import annotations

import re
import types
from typing import Any, Literal, Union, cast, get_args, get_origin

import msgspec

_UNKNOWN = re.compile(r"unknown field `[^`]*`(?: - at `(?P<path>[^`]*)`)?")


def struct_of(tp: Any) -> type[msgspec.Struct] | None:
    """The Struct class a field's type holds (through `X | None` and Annotated), if any."""
    for _ in range(4):
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            return tp
        origin = get_origin(tp)
        args = [a for a in get_args(tp) if a is not type(None)]
        if origin in (Union, types.UnionType) and len(args) == 1:
            tp = args[0]
        elif args and hasattr(cast(object, tp), "__metadata__"):
            tp = args[0]  # Annotated[X, Meta(...)]
        else:
            return None
    return None


def names(cls: type[msgspec.Struct]) -> list[str]:
    """The field names a JSON object for `cls` may use (the tag field aside)."""
    return [f.encode_name for f in msgspec.structs.fields(cls)]


def _at(cls: type[msgspec.Struct], path: str) -> type[msgspec.Struct] | None:
    """The Struct at a msgspec error path like `$.options.paginate` (None past a list or a dict)."""
    current: type[msgspec.Struct] | None = cls
    for part in path.removeprefix("$").split(".")[1:]:
        if current is None or "[" in part:
            return None
        field = next((f for f in msgspec.structs.fields(current) if f.encode_name == part), None)
        current = struct_of(field.type) if field is not None else None
    return current


def explain(message: str, cls: type[msgspec.Struct]) -> str:
    """msgspec's message, plus the allowed field names when it is about an unknown field."""
    found = _UNKNOWN.search(message)
    if found is None:
        return message
    target = _at(cls, found.group("path") or "$")
    if target is None:
        return message
    return f"{message}; allowed: {', '.join(names(target))}"


def type_name(tp: Any) -> str:
    """A field's type as an agent reads it: `str`, `int | null`, `list[str]`, `top/bottom`, `Condition`."""
    origin = get_origin(tp)
    args = get_args(tp)
    if getattr(tp, "__metadata__", None) is not None and args:
        return type_name(args[0])  # Annotated[X, Meta(...)]
    if origin in (Union, types.UnionType):
        return " | ".join("null" if a is type(None) else type_name(a) for a in args)
    if origin is Literal:
        return "/".join(str(a) for a in args)
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_name(a) for a in args)}]"
    return getattr(tp, "__name__", str(tp))


def reference(cls: type[msgspec.Struct]) -> dict[str, Any]:
    """What a JSON object for `cls` holds: its summary, and each field's type and default."""
    out: dict[str, str] = {}
    for f in msgspec.structs.fields(cls):
        kind = type_name(f.type)
        if f.required:
            out[f.encode_name] = f"{kind} (required)"
        elif f.default not in (None, msgspec.NODEFAULT):
            out[f.encode_name] = f"{kind} = {msgspec.json.encode(f.default).decode()}"
        else:
            out[f.encode_name] = kind
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return {"does": " ".join(doc.split()), "fields": out}
