"""`{{name}}`, `{{name.key}}` and `{{params.x}}` in the strings of a step."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, cast

import msgspec

_REF = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}")
_encoder = msgspec.json.Encoder()


class TemplateError(KeyError):
    """A reference to a variable that does not exist (yet)."""


def references(value: Any) -> Iterable[str]:
    """Every `{{path}}` used anywhere in a JSON-like value."""
    if isinstance(value, str):
        yield from _REF.findall(value)
    elif isinstance(value, dict):
        for v in value.values():  # pyright: ignore[reportUnknownVariableType]
            yield from references(v)
    elif isinstance(value, list):
        for v in value:  # pyright: ignore[reportUnknownVariableType]
            yield from references(v)


def lookup(variables: dict[str, Any], path: str) -> Any:
    """Follow a dotted path through dicts (and lists, by index)."""
    node: Any = variables
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = cast(dict[str, Any], node)[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(cast(list[Any], node)):
            node = cast(list[Any], node)[int(part)]
        else:
            raise TemplateError(path)
    return node


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _encoder.encode(value).decode()


def substitute(value: Any, variables: dict[str, Any]) -> Any:
    """A copy of `value` with every reference replaced by its value as text."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        return _REF.sub(lambda m: _text(lookup(variables, m.group(1))), value)
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value
