"""`options.where`: keep only the rows an agent asked for, on their converted values, so asking for
37 of 237 tickets returns 37. `{"status": "open", "priority": {">=": 3}, "title": {"contains": "x"}}`:
every condition must hold; a plain value means equality.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}
OPERATORS = ("=", "!=", *_ORDER, "in", "contains")

Test = Callable[[Any], bool]


def _comparable(a: Any, b: Any) -> bool:
    number = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    return (isinstance(a, number) and isinstance(b, number)) or (isinstance(a, str) and isinstance(b, str))


def _test(field: str, op: str, operand: Any) -> Test:
    if op == "=":
        return lambda v: v == operand
    if op == "!=":
        return lambda v: v != operand
    if op in _ORDER:
        if not isinstance(operand, (int, float, str)) or isinstance(operand, bool):
            raise ValueError(f"where.{field}: {op!r} compares with a number or a string, not {operand!r}")
        compare = _ORDER[op]
        return lambda v: _comparable(v, operand) and compare(v, operand)
    if op == "in":
        if not isinstance(operand, list):
            raise ValueError(f"where.{field}: 'in' takes a list of values")
        choices = cast(list[Any], operand)
        return lambda v: v in choices
    if op == "contains":
        if not isinstance(operand, str):
            raise ValueError(f"where.{field}: 'contains' takes a string")
        return lambda v: (
            (isinstance(v, str) and operand in v) or (isinstance(v, list) and operand in cast(list[Any], v))
        )
    raise ValueError(f"where.{field}: unknown operator {op!r}; use one of {', '.join(OPERATORS)}")


class RowFilter:
    """A compiled `where`: call it with a row (field -> converted value)."""

    def __init__(self, where: dict[str, Any], fields: list[str]) -> None:
        self.tests: list[tuple[str, Test]] = []
        for name, cond in where.items():
            if name not in fields:
                raise ValueError(f"where.{name}: no such field; the schema's fields are {', '.join(fields)}")
            if isinstance(cond, dict):
                ops = cast(dict[str, Any], cond)
                if not ops:
                    raise ValueError(f"where.{name}: give a value or {{operator: value}}")
                self.tests += [(name, _test(name, op, operand)) for op, operand in ops.items()]
            else:
                self.tests.append((name, _test(name, "=", cond)))

    def __call__(self, row: dict[str, Any]) -> bool:
        return all(test(row.get(name)) for name, test in self.tests)
