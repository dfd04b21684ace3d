"""The agent's regexes in output_schema run on RE2: a catastrophic pattern costs linear time, and a
pattern RE2 cannot run is refused up front with invalid_output_schema."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import outschema
from tabpilot.wire.errors import ErrorCode, TabPilotError

# Python's re needs about 4**(n/2) steps for this against n a's and a b: hours for n = 40.
EVIL = "^(a+)+$"
LONG = "a" * 5_000 + "b"


def test_a_catastrophic_pattern_is_matched_in_linear_time() -> None:
    _, found = outschema.apply([{"name": LONG}, {"name": "aaa"}], _object({"name": {"pattern": EVIL}}))
    assert [v["path"] for v in found] == ["$[0].name"]


def test_pattern_properties_and_additional_properties_use_the_same_engine() -> None:
    schema = {
        "type": "object",
        "patternProperties": {EVIL: {"type": "integer"}},
        "additionalProperties": False,
    }
    coerced, found = outschema.apply([{"aaaa": "12", LONG: 1}], schema)
    assert coerced == [{"aaaa": 12, LONG: 1}], "the matching key is coerced by its pattern's schema"
    assert len(found) == 1 and found[0]["row"] == 0, "the long key matches no pattern: not allowed"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": r"(a)\1"},
        {"type": "object", "patternProperties": {"(?=x)": {}}},
        {"type": "object", "patternProperties": {"a": {}}, "unevaluatedProperties": False},
    ],
)
def test_a_pattern_re2_cannot_run_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as caught:
        outschema.compile(schema)
    assert caught.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA


def test_a_schema_nested_past_the_limit_is_refused_before_the_schema_checker_recurses() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(3_000):
        schema = {"anyOf": [schema]}
    with pytest.raises(TabPilotError) as caught:
        outschema.compile(schema)
    assert caught.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA


def _object(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props}
