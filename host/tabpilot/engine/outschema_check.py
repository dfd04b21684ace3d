"""The checks on an agent's `output_schema` beyond the JSON Schema metaschema (outschema.compile runs
them once per schema): each failure is invalid_output_schema naming the keyword and where it is."""

from __future__ import annotations

import difflib
from typing import Any, cast

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from ..wire.errors import ErrorCode, TabPilotError
from . import regex
from .outschema_report import LISTS, MAPS, ONE, path_of, short

MAX_DEPTH = 32  # nesting of subschemas; deeper is a generated or recursive mistake, not a row shape
# Keywords of 2020-12 (validation, applicators, core, annotations): anything close to one is a typo.
_KNOWN = sorted(
    {*Draft202012Validator.VALIDATORS, *MAPS, *LISTS, *ONE}
    | {"$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "title", "description"}
    | {"default", "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding"}
)


def invalid_schema(message: str, **data: Any) -> TabPilotError:
    """The agent's output_schema is not a usable JSON Schema."""
    return TabPilotError(ErrorCode.INVALID_OUTPUT_SCHEMA, f"output_schema {message}", data=data or None)


def resolver(root: dict[str, Any]) -> Any:
    registry: Any = cast(Any, Registry)()
    return registry.resolver_with_root(DRAFT202012.create_resource(root))


def check(schema: dict[str, Any]) -> None:
    """What check_schema lets through but an agent gets wrong: refs that leave the schema (the host
    fetches nothing) or do not resolve, a misspelt keyword (ignored by the spec, so nothing would be
    checked), and nesting past MAX_DEPTH; raises invalid_output_schema naming the keyword."""
    _check(schema, schema, "$", 0)


def _check(node: Any, root: dict[str, Any] | None, where: str, depth: int) -> None:
    if not isinstance(node, dict):
        return
    if depth > MAX_DEPTH:
        raise invalid_schema(f"at {where}: nested deeper than {MAX_DEPTH} levels", keyword=None)
    if depth and "$id" in node:
        root = None  # refs below resolve against this subschema's own $id: the validator follows them
    for k, v in cast(dict[str, Any], node).items():
        at = path_of(where, [k])
        if k in MAPS and isinstance(v, dict):
            for name, sub in cast(dict[str, Any], v).items():
                if k == "patternProperties":
                    _check_pattern(k, name, at)
                _check(sub, root, path_of(at, [name]), depth + 1)
        elif k == "pattern" and isinstance(v, str):
            _check_pattern(k, v, where)
        elif k in LISTS and isinstance(v, list):
            for i, sub in enumerate(cast(list[Any], v)):
                _check(sub, root, f"{at}[{i}]", depth + 1)
        elif k in ONE:
            _check(v, root, at, depth + 1)
        elif k in ("$ref", "$dynamicRef") and isinstance(v, str):
            _check_ref(k, v, root, where)
        elif k not in _KNOWN:
            near = difflib.get_close_matches(k, _KNOWN, n=1, cutoff=0.85)
            if near:
                raise invalid_schema(
                    f'at {where}: "{k}" is not a JSON Schema keyword: did you mean "{near[0]}"?',
                    keyword=k,
                    schema_path=where,
                )


def _check_pattern(k: str, pattern: str, where: str) -> None:
    try:
        regex.compiled(pattern)
    except regex.PatternError as exc:
        raise invalid_schema(
            f'at {where}: "{k}" {short(pattern)} cannot run: {exc}', keyword=k, schema_path=where
        ) from None


def _check_ref(k: str, ref: str, root: dict[str, Any] | None, where: str) -> None:
    if not ref.startswith("#"):
        raise invalid_schema(
            f'at {where}: "{k}": {short(ref)} points outside the schema; only local refs like '
            '"#/$defs/price" are followed (nothing is fetched)',
            keyword=k,
            schema_path=where,
        )
    try:
        if root is not None:
            resolver(root).lookup(ref)
    except Unresolvable:
        raise invalid_schema(
            f'at {where}: "{k}": {short(ref)} does not resolve', keyword=k, schema_path=where
        ) from None
