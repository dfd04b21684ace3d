"""What a request's objects may hold, from their typed definitions: msgspec's validation errors made
actionable (an unknown field gets its nearest known one), and the field reference `observe what=help` lists.

Every request struct forbids unknown fields (a misspelt option must fail, not be ignored); msgspec
says which field and where (`Object contains unknown field `delai_ms` - at `$.options``), and this
finds the struct at that path to name the fields it does take.
"""

from __future__ import annotations

import re
import types
from typing import Any, Literal, Union, cast, get_args, get_origin

import msgspec
import msgspec.inspect as mi

from .echo import clip, unknown_field

_UNKNOWN = re.compile(r"Object contains unknown field `(?P<name>.*?)`(?: - at `\$(?P<at>.*)`)?", re.S)
_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[(.*?)\]")


def explain(exc: msgspec.ValidationError, root: Any, value: Any) -> str:
    """The error's text; for an unknown field, which fields the object there takes and the closest."""
    text = str(exc)
    found = _UNKNOWN.fullmatch(text)
    if found is None:
        return clip(text, 400)
    name, at = found["name"], found["at"] or ""
    known = _fields_at(mi.type_info(root), value, at)
    if known is None:
        return clip(text, 400)
    return unknown_field(name, known, f"${at}" if at else "")


def unknown_path(exc: msgspec.ValidationError) -> str | None:
    """The path of the unknown field the error is about (`options.delai_ms`), or None."""
    found = _UNKNOWN.fullmatch(str(exc))
    if found is None:
        return None
    at = (found["at"] or "").lstrip(".")
    return f"{at}.{found['name']}" if at else found["name"]


def _fields_at(info: mi.Type, value: Any, at: str) -> list[str] | None:
    """The field names of the struct at path `at` below `info` (None if the path leads elsewhere)."""
    for part in _PART.finditer(at):
        struct = _struct(info, value)
        key, index = part[1], part[2]
        if struct is not None and key is not None:
            field = next((f for f in struct.fields if f.encode_name == key), None)
            if field is None:
                return None
            info = field.type
            value = cast(dict[str, Any], value).get(key) if isinstance(value, dict) else None
            continue
        inner = _unwrap(info)
        if index is not None and isinstance(inner, mi.ListType | mi.VarTupleType):
            info = inner.item_type
            items = cast(list[Any], value) if isinstance(value, list) else []
            value = items[int(index)] if int(index) < len(items) else None
        elif isinstance(inner, mi.DictType):
            info = inner.value_type
            value = None
        else:
            return None
    struct = _struct(info, value)
    return None if struct is None else [f.encode_name for f in struct.fields]


def _unwrap(info: mi.Type) -> mi.Type:
    """The type under constraints (`Annotated[int, Meta(...)]`) and `X | None`."""
    while True:
        if isinstance(info, mi.Metadata):
            info = info.type
        elif isinstance(info, mi.UnionType):
            rest = [t for t in info.types if not isinstance(t, mi.NoneType)]
            if len(rest) != 1:
                return info
            info = rest[0]
        else:
            return info


def _struct(info: mi.Type, value: Any) -> mi.StructType | None:
    """The struct `info` stands for; in a tagged union, the member whose tag `value` carries."""
    info = _unwrap(info)
    if isinstance(info, mi.StructType):
        return info
    if not isinstance(info, mi.UnionType):
        return None
    members = [t for t in info.types if isinstance(t, mi.StructType)]
    tags: Any = cast(dict[str, Any], value) if isinstance(value, dict) else {}
    for t in members:
        if t.tag_field is not None and tags.get(t.tag_field) == t.tag:
            return t
    return members[0] if len(members) == 1 else None


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
