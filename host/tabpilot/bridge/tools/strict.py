"""Checks on a tool call's raw arguments, made before the SDK validates them.

The SDK's validation drops a field it does not know, so `close_tab {"tabid": 7}` would close the
active tab. These run on the arguments as the client sent them: they find a field no schema declares
(at any depth where the input schema lists an object's fields) and nesting too deep to walk. Each is
iterative, so no input can make them recurse.
"""

from __future__ import annotations

from typing import Any, cast

from ...wire.depth import MAX_DEPTH, too_deep
from ...wire.echo import unknown_field

__all__ = ["MAX_DEPTH", "nested_names", "stray_field", "too_deep"]


def stray_field(value: Any, schema: Any, defs: dict[str, Any], where: str) -> tuple[str, str] | None:
    """(message, path) of the first field of `value` that `schema` does not declare, or None.

    An object schema with `properties` and no `additionalProperties` lists every field it takes (the
    SDK's schemas of typed dicts); `additionalProperties: true` is a free-form map, left alone."""
    stack: list[tuple[Any, Any, str]] = [(value, schema, where)]
    while stack:
        node, sub, at = stack.pop()
        for s in _branches(sub, defs, node):
            props: Any = s.get("properties")
            if isinstance(node, dict):
                fields = cast(dict[str, Any], node)
                if isinstance(props, dict):
                    known = cast(dict[str, Any], props)
                    if "additionalProperties" not in s:
                        for key in fields:
                            if key not in known:
                                return unknown_field(key, known, at), f"{at}.{key}"
                    stack.extend((v, known[k], f"{at}.{k}") for k, v in fields.items() if k in known)
                extra: Any = s.get("additionalProperties")
                if isinstance(extra, dict) and extra:
                    stack.extend((v, cast(Any, extra), f"{at}.{k}") for k, v in fields.items())
            elif isinstance(node, list):
                items: Any = s.get("items")
                if isinstance(items, dict) and items:
                    stack.extend(
                        (v, cast(Any, items), f"{at}[{i}]") for i, v in enumerate(cast(list[Any], node))
                    )
    return None


def nested_names(schema: Any, defs: dict[str, Any], name: str, where: str) -> list[str]:
    """Paths below `schema` where a field called `name` is declared (`options.delay_ms`)."""
    found: list[str] = []
    stack: list[tuple[Any, str, int]] = [(schema, where, 0)]
    while stack:
        sub, at, depth = stack.pop()
        if depth > 4:  # tool inputs are flat; a few levels cover them
            continue
        for s in _branches(sub, defs, None):
            props: Any = s.get("properties")
            if isinstance(props, dict):
                for k, v in cast(dict[str, Any], props).items():
                    path = f"{at}.{k}" if at else k
                    if k == name:
                        found.append(path)
                    stack.append((v, path, depth + 1))
    return sorted(found, key=lambda p: (p.count("."), p))  # the shallowest first


def _branches(schema: Any, defs: dict[str, Any], value: Any) -> list[dict[str, Any]]:
    """The object or array schemas `schema` stands for: its `$ref` followed, its `anyOf` opened
    (only the branches of the value's own kind, when a value is given)."""
    out: list[dict[str, Any]] = []
    todo: list[Any] = [schema]
    while todo and len(out) < 16:
        s = todo.pop()
        if not isinstance(s, dict):
            continue
        node = cast(dict[str, Any], s)
        ref: Any = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            todo.append(defs.get(ref.removeprefix("#/$defs/")))
        any_of: Any = node.get("anyOf")
        if isinstance(any_of, list):
            todo.extend(cast(list[Any], any_of))
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            if value is None or isinstance(value, dict):
                out.append(node)
        elif kind == "array" and (value is None or isinstance(value, list)):
            out.append(node)
    return out
