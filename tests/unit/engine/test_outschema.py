"""output_schema: lossless coercion, violations with paths, invalid schemas naming their keyword."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabpilot.engine import outschema
from tabpilot.engine.outschema_report import MAX_LISTED, failure
from tabpilot.wire.errors import ErrorCode, TabPilotError


def one(value: Any, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """Coerce and validate a single value; the messages of its violations."""
    coerced, found = outschema.apply(value, schema)
    return coerced, [v["message"] for v in found]


@pytest.mark.parametrize(
    ("declared", "value", "expected"),
    [
        ("integer", "12", 12),
        ("integer", " -3 ", -3),
        ("integer", "0", 0),
        ("number", "12.5", 12.5),
        ("number", "12", 12),
        ("number", "-0.25", -0.25),
        ("number", "1e3", 1000.0),
        ("boolean", "true", True),
        ("boolean", "false", False),
        ("string", 12, "12"),
        ("string", 12.5, "12.5"),
        ("string", True, "true"),
        (["integer", "null"], "7", 7),
        (["null", "integer"], None, None),
        (["string", "integer"], "7", "7"),  # already valid: nothing to convert
        ("integer", 12.0, 12.0),  # JSON Schema counts 12.0 as an integer: left alone
    ],
)
def test_lossless_coercion(declared: Any, value: Any, expected: Any) -> None:
    coerced, errors = one({"v": value}, {"type": "object", "properties": {"v": {"type": declared}}})
    assert coerced == {"v": expected} and type(coerced["v"]) is type(expected)
    assert errors == []


@pytest.mark.parametrize(
    ("declared", "value"),
    [
        ("integer", "12.5"),  # never truncated
        ("integer", "1e3"),
        ("integer", "007"),  # a code with leading zeros is not the number 7
        ("integer", True),  # a boolean is no integer
        ("number", "1,234.50"),  # grouping depends on the locale: the `| number` op reads display forms
        ("number", "$12"),
        ("number", "N/A"),
        ("number", "12abc"),
        ("number", "1e400"),  # not finite
        ("number", ""),  # "" stays ""
        ("boolean", "yes"),
        ("boolean", "1"),
        ("boolean", 1),
        ("string", None),  # null is not invented into "null"
        ("string", [1]),
        ("object", "{}"),  # no JSON parsing of strings
    ],
)
def test_lossy_conversions_are_refused_as_violations(declared: str, value: Any) -> None:
    coerced, errors = one({"v": value}, {"properties": {"v": {"type": declared}}})
    assert coerced == {"v": value}, "the value stays exactly as extracted"
    assert len(errors) == 1 and errors[0].startswith(f"expected {declared}")


def test_missing_fields_stay_missing_and_are_reported() -> None:
    schema = {"type": "object", "required": ["name", "price"], "properties": {"price": {"type": "number"}}}
    coerced, found = outschema.apply([{"name": "a"}, {"price": "3"}], schema)
    assert coerced == [{"name": "a"}, {"price": 3}]
    assert found == [
        {"row": 0, "path": "$[0].price", "message": "missing required field"},
        {"row": 1, "path": "$[1].name", "message": "missing required field"},
    ]


def test_nested_objects_and_arrays_are_coerced_and_reported_by_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "seller": {"type": "object", "properties": {"rating": {"type": "number"}}},
            "sizes": {"type": "array", "items": {"type": "integer"}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "unit price": {"type": "number"},
        },
    }
    rows = [
        {"seller": {"rating": "4.5"}, "sizes": ["38", "39"], "pair": [1, "2"], "unit price": "3"},
        {"seller": {"rating": "good"}, "sizes": ["40", "x"], "unit price": "?"},
    ]
    coerced, found = outschema.apply(rows, schema)
    assert coerced[0] == {"seller": {"rating": 4.5}, "sizes": [38, 39], "pair": ["1", 2], "unit price": 3}
    assert [v["path"] for v in found] == ["$[1].seller.rating", "$[1].sizes[1]", '$[1]["unit price"]']
    assert all(v["row"] == 1 for v in found)


def test_any_of_tries_each_branch_and_nullable_types() -> None:
    schema = {
        "properties": {
            "price": {"anyOf": [{"type": "null"}, {"type": "number"}]},
            "id": {"oneOf": [{"type": "integer"}, {"type": "string", "pattern": "^[A-Z]+-"}]},
            "ref": {"$ref": "#/$defs/count"},
            "both": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
        },
        "$defs": {"count": {"type": "integer"}},
    }
    coerced, errors = one({"price": "9.5", "id": "42", "ref": "3", "both": "4"}, schema)
    assert coerced == {"price": 9.5, "id": 42, "ref": 3, "both": 4} and errors == []
    coerced, errors = one({"price": "free", "both": "-1"}, schema)
    assert coerced == {"price": "free", "both": -1}
    assert sorted(errors) == ['expected null or number (got "free")', "must be >= 0 (got -1)"]


def test_enum_and_const_take_the_member_a_string_spells() -> None:
    schema = {"properties": {"stars": {"enum": [1, 2, 3]}, "kind": {"const": True}, "c": {"enum": ["a"]}}}
    assert one({"stars": "2", "kind": "true"}, schema) == ({"stars": 2, "kind": True}, [])
    coerced, errors = one({"stars": "4", "c": "b"}, schema)
    assert coerced == {"stars": "4", "c": "b"}
    assert sorted(errors) == ['not one of ["a"] (got "b")', 'not one of [1, 2, 3] (got "4")']


def test_short_messages_for_common_keywords() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
            "when": {"type": "string", "format": "date"},
            "pct": {"type": "number", "maximum": 100, "multipleOf": 0.5},
            "tags": {"type": "array", "maxItems": 1, "uniqueItems": True},
        },
    }
    row = {"name": "A", "when": "yesterday", "pct": 100.3, "tags": ["a", "a"], "extra": {"big": "x" * 500}}
    _, found = outschema.apply([row], schema)
    assert sorted((v["path"], v["message"]) for v in found) == [
        ("$[0].extra", "unexpected field"),
        ("$[0].name", 'does not match pattern "^[a-z]+$"'),
        ("$[0].name", "shorter than 2 characters"),
        ("$[0].pct", "must be <= 100 (got 100.3)"),
        ("$[0].pct", "must be a multiple of 0.5 (got 100.3)"),
        ("$[0].tags", "items are not unique"),
        ("$[0].tags", "more than 1 items"),
        ("$[0].when", 'not a valid date (got "yesterday")'),
    ]
    assert all(len(v["message"]) < 80 for v in found), "never quotes a whole value or row"


def test_an_array_schema_checks_the_list_as_a_whole() -> None:
    schema = {"type": "array", "minItems": 3, "items": {"properties": {"n": {"type": "integer"}}}}
    coerced, found = outschema.apply([{"n": "1"}, {"n": "x"}], schema)
    assert coerced == [{"n": 1}, {"n": "x"}]
    assert sorted(found, key=lambda v: v["path"]) == [
        {"path": "$", "message": "fewer than 3 items"},
        {"row": 1, "path": "$[1].n", "message": 'expected integer (got "x")'},
    ]
    # An object schema checks each row: a list's own keywords do not apply.
    _, found = outschema.apply([{"n": 1}], {"type": "object", "minItems": 3})
    assert found == []


def test_a_single_value_is_checked_as_itself() -> None:
    coerced, found = outschema.apply({"total": "12"}, {"properties": {"total": {"type": "integer"}}})
    assert coerced == {"total": 12} and found == []
    _, found = outschema.apply("x", {"type": "object"})
    assert found == [{"path": "$", "message": 'expected object (got "x")'}]


def test_row_indexes_run_on_from_start() -> None:
    _, found = outschema.apply([{"a": 1}, {"a": "x"}], {"properties": {"a": {"type": "number"}}}, start=40)
    assert found == [{"row": 41, "path": "$[41].a", "message": 'expected number (got "x")'}]


def test_the_error_counts_rows_and_caps_the_list() -> None:
    rows = [{"p": "x"} for _ in range(30)] + [{"p": 1}]
    _, found = outschema.apply(rows, {"properties": {"p": {"type": "number"}}})
    err = failure(found, len(rows))
    assert err.code == ErrorCode.VALIDATION_FAILED
    assert err.message.startswith(
        '30 of 31 rows do not match output_schema: $[0].p: expected number (got "x")'
    )
    assert err.message.endswith("and 25 more (see violations)")
    assert err.data["violations_total"] == 30 and len(err.data["violations"]) == MAX_LISTED
    assert err.data["violations"][3] == {"row": 3, "path": "$[3].p", "message": 'expected number (got "x")'}


def test_row_check_across_pages() -> None:
    check = outschema.RowCheck({"properties": {"price": {"type": "number"}}})
    first = check.page([{"price": "1"}, {"price": "2"}])
    second = check.page([{"price": "bad"}])
    assert first == [{"price": 1}, {"price": 2}] and second == [{"price": "bad"}]
    with pytest.raises(TabPilotError) as err:
        check.verdict([*first, *second])
    assert err.value.code == ErrorCode.VALIDATION_FAILED
    assert err.value.data["violations"] == [
        {"row": 2, "path": "$[2].price", "message": 'expected number (got "bad")'}
    ]
    assert err.value.message.startswith("1 of 3 rows")
    whole = outschema.RowCheck(
        {"type": "array", "maxItems": 2, "items": {"properties": {"n": {"type": "integer"}}}}
    )
    rows = whole.page([{"n": "1"}, {"n": "2"}]) + whole.page([{"n": "3"}])
    assert rows == [{"n": 1}, {"n": 2}, {"n": 3}]
    with pytest.raises(TabPilotError) as err:
        whole.verdict(rows)
    assert err.value.data["violations"] == [{"path": "$", "message": "more than 2 items"}]
    assert err.value.message.startswith("the 3 rows do not match output_schema: $: more than 2 items")
    ok = outschema.RowCheck({"type": "object"})
    ok.verdict(ok.page([{"a": 1}]))  # no error


@pytest.mark.parametrize(
    ("schema", "keyword", "where"),
    [
        ({"type": "nmber"}, "type", "$"),
        ({"minimum": "x"}, "minimum", "$"),
        ({"properties": 5}, "properties", "$"),
        ({"properties": {"price": {"type": "nmber"}}}, "type", "$.properties.price"),
        ({"properties": {"a": 5}}, "properties", "$.properties.a"),
        ({"items": {"type": ["string", "nmber"]}}, "type", "$.items"),
        ({"anyOf": [{"type": "string"}, {"maxLength": -1}]}, "maxLength", "$.anyOf[1]"),
        ({"pattern": "("}, "pattern", "$"),
        ({"required": "name"}, "required", "$"),
        ({"enum": 5}, "enum", "$"),
        ({"$ref": "https://example.com/s.json"}, "$ref", "$"),
        ({"properties": {"a": {"$ref": "#/$defs/nope"}}}, "$ref", "$.properties.a"),
    ],
)
def test_invalid_schemas_name_the_keyword(schema: dict[str, Any], keyword: str, where: str) -> None:
    with pytest.raises(TabPilotError) as err:
        outschema.compile(schema)
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA
    assert err.value.data == {"keyword": keyword, "schema_path": where}
    assert err.value.message.startswith(f"output_schema at {where}")
    assert f"keyword {keyword}" in err.value.message or f'"{keyword}"' in err.value.message


@pytest.mark.parametrize(
    ("schema", "typo", "meant"),
    [
        ({"type": "object", "proprties": {"a": {"type": "string"}}}, "proprties", "properties"),
        ({"properties": {"a": {"type": "integer", "minimun": 0}}}, "minimun", "minimum"),
        ({"items": {"requried": ["a"]}}, "requried", "required"),
    ],
)
def test_a_misspelt_keyword_is_named_with_the_one_meant(
    schema: dict[str, Any], typo: str, meant: str
) -> None:
    with pytest.raises(TabPilotError) as err:
        outschema.compile(schema)
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA and err.value.data["keyword"] == typo
    assert f'did you mean "{meant}"' in err.value.message


def test_unknown_keywords_far_from_any_keyword_and_property_names_are_fine() -> None:
    outschema.compile(
        {
            "x-unit": "EUR",
            "properties": {"proprties": {"type": "string"}, "minimun": {"type": "integer"}},
            "enum": [{"requried": 1}],
        }
    )


def test_the_message_for_a_misspelt_type() -> None:
    with pytest.raises(TabPilotError) as err:
        outschema.compile({"type": "object", "properties": {"price": {"type": "nmber"}}})
    assert err.value.message.startswith('output_schema at $.properties.price: "type": "nmber" is not valid')
    assert "(keyword type: use " in err.value.message


def test_size_and_depth_are_capped() -> None:
    big = {"properties": {f"f{i}": {"type": "string", "description": "x" * 100} for i in range(1000)}}
    with pytest.raises(TabPilotError) as err:
        outschema.compile(big)
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA and "bytes" in err.value.message
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(outschema.MAX_DEPTH + 2):
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(TabPilotError) as err:
        outschema.compile(deep)
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA and "deeper" in err.value.message
    with pytest.raises(TabPilotError) as err:
        outschema.compile(["not", "an", "object"])
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA


def test_compiled_schemas_are_cached_and_private() -> None:
    schema: dict[str, Any] = {"properties": {"n": {"type": "integer"}}}
    first = outschema.compile(schema)
    assert outschema.compile({"properties": {"n": {"type": "integer"}}}) is first
    schema["properties"]["n"]["type"] = "string"  # the caller's dict, changed later
    assert first.schema == {"properties": {"n": {"type": "integer"}}}


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_integers_round_trip_through_their_text(n: int) -> None:
    assert outschema.apply({"n": str(n)}, {"properties": {"n": {"type": "integer"}}}) == ({"n": n}, [])
    assert outschema.apply({"s": n}, {"properties": {"s": {"type": "string"}}}) == ({"s": str(n)}, [])


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_round_trip_through_their_text(x: float) -> None:
    coerced, found = outschema.apply({"x": repr(x)}, {"properties": {"x": {"type": "number"}}})
    assert found == [] and coerced["x"] == x


@given(st.text(max_size=12))
def test_coercion_never_changes_what_it_cannot_convert_back(text: str) -> None:
    coerced, _ = outschema.apply({"v": text}, {"properties": {"v": {"type": ["integer", "boolean"]}}})
    value = coerced["v"]
    if value is not text:
        back = ("true" if value else "false") if isinstance(value, bool) else str(value)
        assert back == text.strip(), "only surrounding whitespace may go"


def test_a_recursive_schema_coerces_down_the_tree() -> None:
    tree = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
    }
    coerced, found = outschema.apply({"n": "1", "kids": [{"n": "2", "kids": [{"n": "x"}]}]}, tree)
    assert coerced == {"n": 1, "kids": [{"n": 2, "kids": [{"n": "x"}]}]}
    assert found == [{"path": "$.kids[0].kids[0].n", "message": 'expected integer (got "x")'}]


def test_a_ref_under_a_nested_id_is_left_to_the_validator() -> None:
    inner = {"$id": "https://example.com/price", "$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}
    schema = {"type": "object", "properties": {"a": inner}}
    coerced, found = outschema.apply([{"a": 1}, {"a": "x"}], schema)
    assert coerced == [{"a": 1}, {"a": "x"}]
    assert found == [{"row": 1, "path": "$[1].a", "message": 'expected integer (got "x")'}]
