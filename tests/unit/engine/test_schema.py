"""The schema mini-language parser and the tolerant number/boolean conversions (property tests)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabpilot.engine.convert import Conversions, parse_boolean, parse_number
from tabpilot.engine.schema import FieldSpec, SchemaError, parse_field, parse_schema, split_pipes


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("td:nth-child(1) | text", FieldSpec("f", "td:nth-child(1)")),
        ("td.key", FieldSpec("f", "td.key")),
        ("td img | attr:src", FieldSpec("f", "td img", "attr", "src")),
        ("a | url", FieldSpec("f", "a", "url")),
        ("img | url:data-src", FieldSpec("f", "img", "url", "data-src")),
        ("td.points | text | number", FieldSpec("f", "td.points", convert="number")),
        ("| number", FieldSpec("f", "", convert="number")),
        (":scope | html", FieldSpec("f", "", "html")),
        ("", FieldSpec("f", "")),
        ("li | all", FieldSpec("f", "li", all=True)),
        ("input | attr:checked | boolean", FieldSpec("f", "input", "attr", "checked", convert="boolean")),
        ('td[title="a | b"] | text', FieldSpec("f", 'td[title="a | b"]')),
        ("td[lang|=en]", FieldSpec("f", "td[lang|=en]")),
        ("td:is(.a, .b) | NUMBER", FieldSpec("f", "td:is(.a, .b)", convert="number")),
        (r"td.a\|b | text", FieldSpec("f", r"td.a\|b")),
    ],
)
def test_parse_examples(spec: str, expected: FieldSpec) -> None:
    assert parse_field("f", spec) == expected


@pytest.mark.parametrize(
    "spec",
    [
        "td | txt",
        "td | attr",
        "td | text | html",
        "td | number | boolean",
        "td | all | all",
        "td |",
        "td | html:x",
    ],
)
def test_bad_ops_are_schema_errors_naming_the_field(spec: str) -> None:
    with pytest.raises(SchemaError, match="'price'"):
        parse_field("price", spec)


def test_empty_schema_is_an_error() -> None:
    with pytest.raises(SchemaError):
        parse_schema({})


_simple = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
_selector = st.one_of(
    st.just(""),
    _simple,
    st.builds(lambda a, b: f"{a} > {b}", _simple, _simple),
    st.builds(lambda a, v: f'{a}[title="{v}"]', _simple, st.text("ab |[]()'", max_size=6)),
    st.builds(lambda a, b: f"{a}:is(.{b}, .x)", _simple, _simple),
    st.builds(lambda c, a: f"{c} {a}", st.sampled_from(["+", "~"]), _simple),
)
_field = st.builds(
    FieldSpec,
    name=st.just("f"),
    selector=_selector,
    take=st.sampled_from(["text", "html", "attr", "url"]),
    all=st.booleans(),
    convert=st.sampled_from([None, "number", "boolean"]),
).map(
    lambda f: FieldSpec(f.name, f.selector, f.take, "data-x" if f.take == "attr" else None, f.all, f.convert)
)


@given(_field)
def test_render_then_parse_is_identity(spec: FieldSpec) -> None:
    assert parse_field("f", spec.render()) == spec


@given(st.text(max_size=60))
def test_parser_never_crashes(text: str) -> None:
    try:
        parsed = parse_field("f", text)
    except SchemaError:
        return
    assert parsed.take in ("text", "html", "attr", "url")


@given(st.text(alphabet="ab|[]()\"'\\", max_size=30))
def test_split_keeps_every_character(text: str) -> None:
    assert "|".join(split_pipes(text)) == text


# --- numbers ---


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,234.50", 1234.5),
        ("$12", 12),
        ("-3", -3),
        ("12 pts", 12),
        ("(1,234)", -1234),
        ("1.234,50 €", 1234.5),
        ("1.234", 1.234),
        ("1.234.567", 1234567),
        ("0,001", 0.001),
        ("12,5", 12.5),
        ("PROJ-101", 101),
        ("-$12.00", -12.0),
        ("USD -5", -5),
        ("1.5e3", 1500.0),
        ("45%", 45),
        ("12\u00a0345", 12345),
        ("1'234", 1234),
        ("\u22127", -7),
    ],
)
def test_number_formats(text: str, value: float) -> None:
    got = parse_number(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text", ["N/A", "", "—", "none"])
def test_not_a_number_is_none(text: str) -> None:
    assert parse_number(text) is None


@given(st.integers(min_value=-(10**12), max_value=10**12), st.integers(min_value=0, max_value=99))
def test_number_round_trips_common_styles(whole: int, cents: int) -> None:
    sign = "-" if whole < 0 else ""
    a = abs(whole)
    us = f"{sign}{a:,}.{cents:02d}"
    eu = f"{sign}{a:,}".replace(",", ".") + f",{cents:02d}"
    expected = whole + (cents / 100 if whole >= 0 else -cents / 100)
    for text in (us, eu, f"${us}", f"{us} USD", f"{eu} €"):
        assert parse_number(text) == pytest.approx(expected), text
    assert parse_number(f"{sign}{a:,}") == whole
    if whole < 0:
        assert parse_number(f"({a:,})") == whole


@given(st.text(max_size=40))
def test_number_parser_never_crashes(text: str) -> None:
    assert parse_number(text) is None or isinstance(parse_number(text), int | float)


def test_booleans() -> None:
    assert [parse_boolean(v, "text") for v in ("Yes", "no", "", "Active", "0", None)] == [
        True,
        False,
        False,
        True,
        False,
        False,
    ]
    assert parse_boolean("", "attr") is True, "a present, empty attribute (checked) is true"
    assert parse_boolean("false", "attr") is False and parse_boolean(None, "attr") is False


def test_conversions_apply_per_field_and_warn_once() -> None:
    specs = parse_schema(
        {"n": "td | number", "tags": "li | all | number", "on": "input | attr:checked | boolean"}
    )
    conv = Conversions(specs)
    rows = conv.rows([["1,000", ["1", "x"], ""], ["N/A", None, None], ["3"]])
    assert rows == [
        {"n": 1000, "tags": [1, None], "on": True},
        {"n": None, "tags": None, "on": False},
        {"n": 3, "tags": None, "on": False},
    ]
    [w1, w2] = conv.warnings()
    assert w1["field"] == "tags" and w2["field"] == "n" and "1 value" in w2["message"]


@pytest.mark.parametrize(
    ("spec", "selector"), [("+ dd", "+ dd"), ("  ~ p a | url", "~ p a"), ("+dd.x|number", "+dd.x")]
)
def test_sibling_selectors_start_with_a_combinator(spec: str, selector: str) -> None:
    assert parse_field("f", spec).selector == selector


@pytest.mark.parametrize("spec", ["+", " ~ | text", "+ | url"])
def test_a_lone_combinator_is_a_schema_error(spec: str) -> None:
    with pytest.raises(SchemaError, match="needs a selector"):
        parse_field("f", spec)
