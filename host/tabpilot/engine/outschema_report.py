"""What the agent reads about an output_schema: short violations with paths, and schema problems.

jsonschema's own messages quote the whole instance (a row, or the whole data list); these say only
what is wrong where: `$[3].price: expected number (got "N/A")`, `$[0].name: missing required field`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NotRequired, TypedDict, cast

import msgspec
from jsonschema.exceptions import SchemaError, ValidationError

from ..wire.errors import ErrorCode, TabPilotError
from . import regex

MAX_LISTED = 20  # violations listed in the error data; the total is always given
MAX_IN_MESSAGE = 5
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema.
MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
ONE = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"}
    | {"unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)
_TYPES = '"string", "number", "integer", "boolean", "object", "array" or "null"'
_BOUNDS = {
    "minimum": ">=",
    "maximum": "<=",
    "exclusiveMinimum": ">",
    "exclusiveMaximum": "<",
}
_SIZES = {
    "minLength": "shorter than {} characters",
    "maxLength": "longer than {} characters",
    "minItems": "fewer than {} items",
    "maxItems": "more than {} items",
    "minProperties": "fewer than {} fields",
    "maxProperties": "more than {} fields",
}


class Violation(TypedDict):
    """One place where the data does not match: the row (when the data is rows), path, message."""

    row: NotRequired[int]
    path: str
    message: str


def path_of(prefix: str, parts: Iterable[Any]) -> str:
    """`$[3].price`, `$[3]["unit price"]`, `$[3].tags[0]` from a row prefix and path parts."""
    out = prefix
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.fullmatch(str(p)):
            out += f".{p}"
        else:
            out += f"[{short(p)}]"
    return out


def short(value: Any, limit: int = 40, containers: bool = False) -> str:
    """Compact JSON of a value, cut to `limit` characters; a row or list only by its kind."""
    if not containers and isinstance(value, dict):
        return "object"
    if not containers and isinstance(value, list):
        return "array"
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def violations_of(errors: Iterable[ValidationError], prefix: str, row: int | None) -> list[Violation]:
    """Short violations from jsonschema errors; `row` None: the first path part is the row index."""
    out: list[Violation] = []
    seen: set[tuple[str, str]] = set()
    for error in errors:
        for parts, message in _explain(error):
            path = path_of(prefix, parts)
            if (path, message) in seen:
                continue
            seen.add((path, message))
            index = row if row is not None else (parts[0] if parts and isinstance(parts[0], int) else None)
            out.append(
                {"row": index, "path": path, "message": message}
                if index is not None
                else {"path": path, "message": message}
            )
    return out


def _explain(error: ValidationError) -> list[tuple[list[Any], str]]:
    """(path parts, message) pairs: a missing or unexpected field is named in its own path."""
    at: list[Any] = list(error.absolute_path)
    kw: Any = error.validator
    want: Any = error.validator_value
    inst: Any = error.instance
    if kw == "required" and isinstance(inst, dict):
        fields = cast(dict[str, Any], inst)
        return [([*at, k], "missing required field") for k in cast(list[Any], want) if k not in fields]
    if kw == "additionalProperties" and isinstance(inst, dict):
        parent: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
        known = cast(dict[str, Any], parent.get("properties") or {})
        patterns = cast(dict[str, Any], parent.get("patternProperties") or {})
        extra = [k for k in cast(dict[str, Any], inst) if k not in known and not _matches(k, patterns)]
        return [([*at, k], "unexpected field") for k in extra] or [(at, "unexpected fields")]
    if kw in ("anyOf", "oneOf") and error.context:
        return _explain_branches(error, at)
    return [(at, message(error))]


def _explain_branches(error: ValidationError, at: list[Any]) -> list[tuple[list[Any], str]]:
    context = error.context or []
    direct = [e for e in context if not e.relative_path]
    if direct and len(direct) == len(context) and all(e.validator == "type" for e in direct):
        wanted: list[str] = []
        for e in direct:
            for t in _names(e.validator_value):
                if t not in wanted:
                    wanted.append(t)
        return [(at, f"expected {' or '.join(wanted)} (got {short(error.instance)})")]
    # The closest branch is the one with the fewest errors; its first error is the one to fix.
    branches: dict[Any, list[ValidationError]] = {}
    for e in context:
        branches.setdefault(e.schema_path[0] if e.schema_path else None, []).append(e)
    closest = min(branches.values(), key=len)[0]
    return [([*at, *closest.relative_path], f"{message(closest)} (no {error.validator} branch matches)")]


def _names(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in cast(list[Any], value)]


def _matches(key: str, patterns: dict[str, Any]) -> bool:
    return any(regex.search(p, key) for p in patterns)


def message(error: ValidationError) -> str:
    """The short reason for one jsonschema error."""
    kw: Any = error.validator
    want: Any = error.validator_value
    inst: Any = error.instance
    if kw == "type":
        return f"expected {' or '.join(_names(want))} (got {short(inst)})"
    if kw == "enum":
        options = cast(list[Any], want)
        shown = ", ".join(short(o, 20) for o in options[:8]) + (", …" if len(options) > 8 else "")
        return f"not one of [{shown}] (got {short(inst)})"
    if kw == "const":
        return f"expected {short(want)} (got {short(inst)})"
    if kw in _BOUNDS:
        return f"must be {_BOUNDS[kw]} {short(want)} (got {short(inst)})"
    if kw in _SIZES:
        return _SIZES[kw].format(want)
    if kw == "multipleOf":
        return f"must be a multiple of {short(want)} (got {short(inst)})"
    if kw == "pattern":
        return f"does not match pattern {short(want)}"
    if kw == "format":
        return f"not a valid {want} (got {short(inst)})"
    if kw == "uniqueItems":
        return "items are not unique"
    if kw == "oneOf":
        return "matches more than one oneOf branch"
    if kw is None or error.validator_value is False:
        return "no value is allowed here"
    return f"does not satisfy {kw}: {short(want)}"


def failure(violations: Sequence[Violation], rows: int | None) -> TabPilotError:
    """validation_failed: how many rows are wrong, the first paths in the message, the list in data."""
    bad = len({v["row"] for v in violations if "row" in v})
    if rows is None:
        head = "the result does not match output_schema"
    elif bad:
        head = f"{bad} of {rows} rows do not match output_schema"
    else:
        head = f"the {rows} rows do not match output_schema"
    shown = "; ".join(f"{v['path']}: {v['message']}" for v in violations[:MAX_IN_MESSAGE])
    more = len(violations) - MAX_IN_MESSAGE
    text = f"{head}: {shown}" + (f"; and {more} more (see violations)" if more > 0 else "")
    return TabPilotError(
        ErrorCode.VALIDATION_FAILED,
        text,
        data={"violations": list(violations[:MAX_LISTED]), "violations_total": len(violations)},
    )


def schema_problem(exc: SchemaError) -> tuple[str, str | None, str]:
    """(message, offending keyword, where in the schema) for an invalid schema."""
    parts: list[Any] = list(exc.absolute_path)
    keyword: str | None = None
    where, inside = "$", 0
    state = "schema"  # what the next path part is: a keyword, a name or index, or inside a value
    for i, p in enumerate(parts):
        if state == "schema":
            keyword, where, inside = str(p), path_of("$", parts[:i]), i + 1
            state = "names" if p in MAPS or p in LISTS else "schema" if p in ONE else "value"
        elif state == "names":
            state = "schema"
    if keyword is None:
        return (f"is not valid: {exc.message[:120]}", None, "$")
    if state == "schema":
        # The whole subschema is wrong (`"properties": {"a": 5}`, `"items": [1]`).
        at = path_of("$", parts)
        text = f'at {at}: {short(exc.instance)} is not a schema (use an object like {{"type": "string"}})'
        return (f"{text} (keyword {keyword})", keyword, at)
    inner = path_of("", parts[inside:])
    text = f'at {where}: "{keyword}"{inner}: {short(exc.instance, 60, True)} is not valid'
    return (f"{text} (keyword {keyword}: {_hint(exc, keyword)})", keyword, where)


def _hint(exc: SchemaError, keyword: str) -> str:
    if keyword == "type":
        return f"use {_TYPES}"
    if exc.validator == "type":
        return f"expected {' or '.join(_names(exc.validator_value))}"
    if exc.validator == "format":
        return f"not a valid {exc.validator_value}"
    if exc.validator == "minimum":
        return f"must be >= {exc.validator_value}"
    return exc.message[:100]
