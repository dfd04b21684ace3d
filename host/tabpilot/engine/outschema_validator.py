"""jsonschema's 2020-12 validator with its three regex keywords matched by RE2 (engine.regex).

jsonschema matches `pattern`, `patternProperties` and the patterns that decide which properties
are "additional" with Python's backtracking `re`; these are the same rules with a linear-time engine.
`unevaluatedProperties` also consults patternProperties; compile refuses that pair (outschema).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from .regex import search


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, sub in patterns.items():
        for k, v in cast(dict[str, Any], instance).items():
            if search(pattern, k):
                yield from validator.descend(v, sub, path=k, schema_path=pattern)


def additional(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The properties neither `properties` nor `patternProperties` cover."""
    props: Any = schema.get("properties", {})
    patterns: Any = schema.get("patternProperties", {})
    return [
        k
        for k in instance
        if k not in props and not any(search(p, k) for p in cast(dict[str, Any], patterns))
    ]


def _additional_properties(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = additional(instance, schema)
    if validator.is_type(extra, "object"):
        for k in extras:
            yield from validator.descend(instance[k], extra, path=k)
    elif not extra and extras:
        listed = ", ".join(repr(k) for k in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


_extend: Any = cast(Any, validators).extend  # jsonschema's own annotations are partly untyped
Validator: Any = _extend(
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
