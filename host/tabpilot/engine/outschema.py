"""`output_schema`: a JSON Schema (2020-12) the extracted data must match, with lossless coercion.

`compile` checks a schema once (cached) and names the offending keyword when it is invalid. `apply`
coerces values towards the declared types, then validates with a real JSON Schema validator and
turns each error into a short violation an agent can act on: `{"row": 3, "path": "$[3].price",
"message": "expected number"}`. A schema whose top-level type is "array" validates the data as a
whole; any other schema validates each row of a list (or the value itself when it is not a list).

Coercion is lossless: a value changes only when its type is not one the schema allows and it
converts exactly into one that is, so converting back gives the same value:
  - a string in plain JSON number syntax (optional sign, no leading zeros, no grouping) becomes an
    integer or number: "12" -> 12, "-0.5" -> -0.5, "1e3" -> 1000.0 (number only); "12.5" is never
    truncated to an integer and "007", "1,234.50", "$12" stay strings (a violation): those are
    display forms whose reading depends on a locale, which the schema's `| number` op handles;
  - "true" / "false" become booleans; nothing else does ("yes", "1" stay);
  - a number or boolean becomes a string for a string field: 12 -> "12", true -> "true";
  - a string becomes the enum/const member it spells exactly ("2" -> 2 for enum [1, 2, 3]);
  - "" and null are never invented or dropped: they stay as they are.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from ..wire.depth import too_deep
from . import regex
from .outschema_check import MAX_DEPTH, check, invalid_schema, resolver
from .outschema_report import Violation, failure, schema_problem, violations_of
from .outschema_validator import Validator

MAX_SCHEMA_BYTES = 64 * 1024
_CACHE_SIZE = 128
_encoder = msgspec.json.Encoder(order="sorted")
_INT = re.compile(r"-?(0|[1-9]\d*)")
_NUM = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_ARRAY_WORDS = ("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")


@dataclass
class Compiled:
    """A checked schema: its validator, whether it validates the whole data, and subschema helpers."""

    schema: dict[str, Any]
    validator: Any  # a Draft202012Validator (jsonschema's own annotations are partly untyped)
    whole: bool
    _branches: dict[int, Any] = field(default_factory=dict[int, Any])

    def fits(self, value: Any, sub: Any) -> bool:
        """Whether `value` is valid under the subschema `sub` (refs resolve against the root)."""
        found = self._branches.get(id(sub))
        if found is None:
            found = self._branches[id(sub)] = self.validator.evolve(schema=sub)
        return found.is_valid(value)

    _refs: dict[str, Any] = field(default_factory=dict[str, Any])

    def lookup(self, ref: str) -> Any:
        """The subschema a local `$ref` points to, None when only a nested `$id` gives it a meaning
        (coercion then skips it; the validator still resolves it)."""
        if ref not in self._refs:
            try:
                self._refs[ref] = resolver(self.schema).lookup(ref).contents
            except Unresolvable:
                self._refs[ref] = None
        return self._refs[ref]


_cache: OrderedDict[bytes, Compiled] = OrderedDict()


def compile(schema: Any) -> Compiled:
    """Check a JSON Schema 2020-12 and build its validator; invalid_output_schema names the keyword."""
    if not isinstance(schema, dict):
        raise invalid_schema('must be a JSON Schema object, e.g. {"type": "object", "properties": {...}}')
    if too_deep(
        schema, 2 * MAX_DEPTH + 2
    ):  # JSON levels, two per subschema; the encoder and check_schema recurse
        raise invalid_schema(f"nests deeper than {MAX_DEPTH} levels of subschemas", keyword=None)
    try:
        key = _encoder.encode(schema)
    except (TypeError, msgspec.EncodeError) as exc:
        raise invalid_schema(f"is not JSON: {exc}") from None
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    if len(key) > MAX_SCHEMA_BYTES:
        raise invalid_schema(f"is {len(key):,} bytes; at most {MAX_SCHEMA_BYTES:,}")
    own: dict[str, Any] = msgspec.json.decode(key)  # a private copy: the caller may mutate theirs
    try:
        Draft202012Validator.check_schema(own)
    except SchemaError as exc:
        message, keyword, where = schema_problem(exc)
        raise invalid_schema(message, keyword=keyword, schema_path=where) from None
    check(own)
    if b'"unevaluatedProperties"' in key and b'"patternProperties"' in key:
        raise invalid_schema(
            "combines unevaluatedProperties with patternProperties, which is not supported: "
            "use additionalProperties",
            keyword="unevaluatedProperties",
        )
    compiled = Compiled(
        own, Validator(own, format_checker=Draft202012Validator.FORMAT_CHECKER), _is_whole(own)
    )
    _cache[key] = compiled
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return compiled


def apply(data: Any, schema: dict[str, Any] | Compiled, start: int = 0) -> tuple[Any, list[Violation]]:
    """Coerce `data` losslessly to the schema's types, then validate: (coerced data, violations).

    A list is checked row by row (paths `$[start + i]...`) unless the schema is an array schema, which
    checks the list as a whole; anything else is checked as one value (paths `$...`).
    """
    c = schema if isinstance(schema, Compiled) else compile(schema)
    try:
        if c.whole or not isinstance(data, list):
            value = coerce(data, c.schema, c)
            return value, violations_of(c.validator.iter_errors(value), "$", None)
        rows: list[Any] = []
        found: list[Violation] = []
        for i, row in enumerate(cast(list[Any], data), start):
            value = coerce(row, c.schema, c)
            rows.append(value)
            found += violations_of(c.validator.iter_errors(value), f"$[{i}]", i)
        return rows, found
    except Unresolvable as exc:  # compile checks local refs; one hidden under a nested $id is caught here
        raise invalid_schema(f"has a $ref that does not resolve: {exc}") from None


class RowCheck:
    """Checks an extract's rows page by page, then gives a verdict. Row indexes count from `start`
    (the rows earlier steps put in the run's data), so `$[k]` is `data[k]` of the result."""

    def __init__(self, schema: dict[str, Any], start: int = 0) -> None:
        self.compiled = compile(schema)
        self.start = start
        self.rows = 0
        self.violations: list[Violation] = []

    def page(self, rows: list[Any]) -> list[Any]:
        """The page's rows, coerced; an array schema's verdict waits for the whole list."""
        c = self.compiled
        if c.whole:
            coerced = [coerce(r, item_schema(c, self.rows + i), c) for i, r in enumerate(rows)]
        else:
            coerced, found = apply(rows, c, self.start + self.rows)
            self.violations += found
        self.rows += len(rows)
        return coerced

    def verdict(self, rows: list[Any]) -> None:
        """Raise validation_failed (violations in its data) when any row, or the list, does not match."""
        if self.compiled.whole:
            self.violations = [self._shifted(v) for v in apply(rows, self.compiled)[1]]
        if self.violations:
            raise failure(self.violations, self.rows)

    def _shifted(self, v: Violation) -> Violation:
        if "row" not in v or not self.start:
            return v
        row = v["row"] + self.start
        return {
            "row": row,
            "path": f"$[{row}]" + v["path"].removeprefix(f"$[{v['row']}]"),
            "message": v["message"],
        }


def coerce(value: Any, schema: Any, c: Compiled, depth: int = 0) -> Any:
    """`value` with lossless conversions towards what `schema` declares (unchanged when none applies)."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return value
    s = cast(dict[str, Any], schema)
    ref = s.get("$ref")
    if isinstance(ref, str):
        value = coerce(value, c.lookup(ref), c, depth + 1)
    for sub in _schemas(s.get("allOf")):
        value = coerce(value, sub, c, depth + 1)
    for key in ("anyOf", "oneOf"):
        branches = _schemas(s.get(key))
        if branches and not any(c.fits(value, b) for b in branches):
            for b in branches:
                candidate = coerce(value, b, c, depth + 1)
                if candidate is not value and c.fits(candidate, b):
                    value = candidate
                    break
    types = _types(s.get("type"))
    if types and not any(_is(value, t) for t in types):
        value = _convert(value, types)
    if "const" in s or "enum" in s:
        value = _to_member(value, [s["const"]] if "const" in s else s.get("enum"))
    if isinstance(value, dict):
        return _coerce_object(cast(dict[str, Any], value), s, c, depth)
    if isinstance(value, list):
        return _coerce_array(cast(list[Any], value), s, c, depth)
    return value


def item_schema(c: Compiled, index: int) -> Any:
    """The subschema an array schema gives the item at `index` (prefixItems first, then items)."""
    prefix = _schemas(c.schema.get("prefixItems"))
    return prefix[index] if index < len(prefix) else c.schema.get("items", True)


def _coerce_object(value: dict[str, Any], s: dict[str, Any], c: Compiled, depth: int) -> dict[str, Any]:
    props = s.get("properties")
    props = cast(dict[str, Any], props) if isinstance(props, dict) else {}
    patterns = s.get("patternProperties")
    patterns = cast(dict[str, Any], patterns) if isinstance(patterns, dict) else {}
    extra = s.get("additionalProperties", True)
    if not props and not patterns and extra is True:
        return value
    out: dict[str, Any] = {}
    for k, v in value.items():
        subs = [props[k]] if k in props else []
        subs += [p for rx, p in patterns.items() if regex.search(rx, k)]
        for sub in subs or [extra]:
            v = coerce(v, sub, c, depth + 1)
        out[k] = v
    return out


def _coerce_array(value: list[Any], s: dict[str, Any], c: Compiled, depth: int) -> list[Any]:
    prefix = _schemas(s.get("prefixItems"))
    items = s.get("items", True)
    if not prefix and items is True:
        return value
    return [coerce(v, prefix[i] if i < len(prefix) else items, c, depth + 1) for i, v in enumerate(value)]


def _convert(value: Any, types: list[str]) -> Any:
    for t in types:
        if isinstance(value, str):
            text = value.strip()
            if t == "integer" and _INT.fullmatch(text):
                return int(text)
            if t == "number" and _NUM.fullmatch(text):
                number = float(text) if any(ch in text for ch in ".eE") else int(text)
                if not isinstance(number, float) or math.isfinite(number):
                    return number
            if t == "boolean" and text in ("true", "false"):
                return text == "true"
        elif t == "string" and isinstance(value, bool):
            return "true" if value else "false"
        elif t == "string" and isinstance(value, int | float) and math.isfinite(value):
            return str(value)
    return value


def _to_member(value: Any, members: Any) -> Any:
    """A string that spells one of the allowed values exactly (or a number that a string member spells)."""
    if not isinstance(members, list) or not isinstance(value, str | int | float) or isinstance(value, bool):
        return value
    allowed = cast(list[Any], members)
    if any(m == value and type(m) is type(value) for m in allowed):
        return value
    kinds = {"integer" if isinstance(m, int) and not isinstance(m, bool) else _kind(m) for m in allowed}
    for kind in ("integer", "number", "boolean", "string"):
        if kind in kinds:
            candidate = _convert(value, [kind])
            if candidate is not value and any(m == candidate and type(m) is type(candidate) for m in allowed):
                return candidate
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "other"


def _is(value: Any, t: str) -> bool:
    """JSON Schema's idea of the type (a bool is no integer; 12.0 is one)."""
    if isinstance(value, bool):
        return t == "boolean"
    if t == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    kinds = {"number": int | float, "string": str, "object": dict, "array": list, "null": type(None)}
    kind = kinds.get(t)
    return kind is not None and isinstance(value, kind)


def _types(declared: Any) -> list[str]:
    if isinstance(declared, str):
        return [declared]
    return [t for t in cast(list[Any], declared) if isinstance(t, str)] if isinstance(declared, list) else []


def _schemas(value: Any) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def _is_whole(schema: dict[str, Any]) -> bool:
    types = _types(schema.get("type"))
    if types:
        return "array" in types and "object" not in types
    return "properties" not in schema and any(w in schema for w in _ARRAY_WORDS)
