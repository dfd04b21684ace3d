"""One compact output schema per composite tool, shared by all its actions.

The full schema (an `anyOf` of every action's result with all nested definitions) is ~13 KB that an
agent reads on every request and rarely needs: each action's line in the description already says
what it returns. The compact one keeps structured output honest at a fraction of the size: an object
whose properties are the union of the actions' top-level fields, each with its JSON type only
(nested objects and arrays stay open). Every real result still validates against it. Several types
are spelled as `anyOf` branches of one `type` each, the form every client's schema dialect maps.
"""

from __future__ import annotations

from typing import Any, cast

_JSON_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return cast(dict[str, Any], defs.get(ref.removeprefix("#/$defs/"), {}))
    return node


def _types(node: dict[str, Any], defs: dict[str, Any]) -> set[str] | None:
    """The JSON types a property schema allows; None when it allows anything."""
    node = _resolve(node, defs)
    if "anyOf" in node:
        found: set[str] = set()
        for option in cast(list[dict[str, Any]], node["anyOf"]):
            sub = _types(option, defs)
            if sub is None:
                return None
            found |= sub
        return found
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(cast(list[str], kind))
    if "properties" in node or "additionalProperties" in node:
        return {"object"}
    return None


def _results(schema: dict[str, Any]) -> list[dict[str, Any]]:
    defs = cast(dict[str, Any], schema.get("$defs", {}))
    options = cast(list[dict[str, Any]], schema.get("anyOf") or [schema])
    return [_resolve(option, defs) for option in options]


def flatten(schema: dict[str, Any]) -> dict[str, Any]:
    """The compact schema: every result's top-level properties with their types, nothing required."""
    defs = cast(dict[str, Any], schema.get("$defs", {}))
    merged: dict[str, set[str] | None] = {}
    for result in _results(schema):
        for name, prop in cast(dict[str, dict[str, Any]], result.get("properties", {})).items():
            kinds = _types(prop, defs)
            if name in merged:
                before = merged[name]
                merged[name] = None if before is None or kinds is None else before | kinds
            else:
                merged[name] = kinds
    props: dict[str, Any] = {}
    for name, kinds in merged.items():
        ordered = [k for k in _JSON_TYPES if kinds is None or k in kinds]
        if "number" in ordered and "integer" in ordered:  # a number already admits integers
            ordered.remove("integer")
        props[name] = {"type": ordered[0]} if len(ordered) == 1 else {"anyOf": [{"type": k} for k in ordered]}
    return {"type": "object", "properties": props}
