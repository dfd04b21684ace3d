"""How deep a JSON value nests, measured without recursion: the check that runs before anything
that recurses (a validator, a schema checker, an encoder) sees an agent's input."""

from __future__ import annotations

from typing import Any, cast

MAX_DEPTH = 64  # of the arguments' nesting: a JSON Schema or a workflow is far shallower


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether objects and arrays in `value` nest more than `limit` levels."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: list[Any] = list(cast(dict[Any, Any], node).values())
        elif isinstance(node, list):
            children = cast(list[Any], node)
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))  # pyright: ignore[reportUnknownArgumentType]
    return False
