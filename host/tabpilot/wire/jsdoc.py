"""What protocol.js learns from the Python types: each command's defaults, and JSDoc typedefs of the replies.

The extension reads its defaults from `DEFAULTS` (never a literal of its own), so a default changed here
changes on both sides; the typedefs document what each handler answers.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import msgspec.inspect as mi

from . import messages as m
from .replies import REPLIES


def defaults() -> dict[str, dict[str, Any]]:
    """Per command tag, its fields' defaults (the ones that are not null)."""
    out: dict[str, dict[str, Any]] = {}
    for cls in sorted(m.EXTENSION_COMMANDS, key=m.tag_of):
        found: dict[str, Any] = {}
        for f in msgspec.structs.fields(cls):
            value: Any = f.default
            if f.default_factory is not msgspec.NODEFAULT:
                value = f.default_factory()
            if value is not msgspec.NODEFAULT and value is not None:
                found[f.encode_name] = msgspec.to_builtins(value)
        if found:
            out[m.tag_of(cls)] = found
    return out


def _js_type(t: mi.Type) -> str:
    """A msgspec type as a JSDoc type expression."""
    match t:
        case mi.Metadata():
            return _js_type(t.type)
        case mi.StrType() | mi.LiteralType():
            return "string"
        case mi.IntType() | mi.FloatType():
            return "number"
        case mi.BoolType():
            return "boolean"
        case mi.NoneType():
            return "null"
        case mi.ListType():
            return f"Array<{_js_type(t.item_type)}>"
        case mi.DictType():
            return f"Object<string, {_js_type(t.value_type)}>"
        case mi.StructType():
            return t.cls.__name__
        case mi.UnionType():
            return (
                "(" + "|".join(dict.fromkeys(_js_type(x) for x in t.types)) + ")"
            )  # int | float: one number
        case _:
            return "*"


def _structs() -> list[type[msgspec.Struct]]:
    """Every reply struct, and every struct a reply holds, each once, in a stable order."""
    seen: dict[str, type[msgspec.Struct]] = {}
    todo: list[Any] = [mi.type_info(cls) for cls in REPLIES.values()]
    while todo:
        t = todo.pop()
        match t:
            case mi.StructType() if t.cls.__name__ not in seen:
                seen[t.cls.__name__] = t.cls
                todo.extend(f.type for f in t.fields)
            case mi.Metadata():
                todo.append(t.type)
            case mi.ListType():
                todo.append(t.item_type)
            case mi.DictType():
                todo.append(t.value_type)
            case mi.UnionType():
                todo.extend(t.types)
            case _:
                pass
    return [seen[k] for k in sorted(seen)]


def typedefs() -> list[str]:
    """JSDoc typedef lines of every reply (and the structs inside them), and which command answers each."""
    lines: list[str] = []
    for cls in _structs():
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        doc = " ".join((cls.__doc__ or "").split())
        answers = sorted(m.tag_of(c) for c, r in REPLIES.items() if r is cls)
        lines.append("/**")
        lines.append(f" * {doc}" + (f" (answers {', '.join(answers)})" if answers else ""))
        lines.append(f" * @typedef {{Object}} {cls.__name__}")
        for f in info.fields:
            lines.append(f" * @property {{{_js_type(f.type)}}} [{f.encode_name}]")
        lines.append(" */")
    return lines


def defaults_line() -> str:
    """The `DEFAULTS` export: per command tag, its non-null defaults."""
    return f"export const DEFAULTS = Object.freeze({json.dumps(defaults(), indent=2, sort_keys=True)});"
