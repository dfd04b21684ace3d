"""What each tool accepts: its input schema is exactly its actions' arguments, and an action declared
from its wire struct (the element actions, screenshot) sends every argument the agent gave, in that
struct, and takes all of its fields."""

from __future__ import annotations

from typing import Any, Literal, cast

import msgspec
import pytest
from typing_extensions import TypedDict

from tabpilot.bridge.tools import TOOLS
from tabpilot.bridge.tools.app import build_server
from tabpilot.bridge.tools.base import Backend, Call
from tabpilot.bridge.tools.composite import Action, CompositeTool
from tabpilot.bridge.tools.fromwire import from_struct, wire_fields
from tabpilot.bridge.tools.interact import elements
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.unit.bridge.test_tools import FakePool, call, payload

pytestmark = pytest.mark.anyio

DECLARED = {
    "click": m.Click,
    "fill": m.Fill,
    "fill_form": m.FillForm,
    "type": m.TypeText,
    "press": m.Press,
    "select": m.SelectOption,
    "check": m.Check,
    "uncheck": m.Check,
    "hover": m.Hover,
    "scroll": m.Scroll,
    "wait_for": m.WaitFor,
    "highlight": m.Highlight,
    "screenshot": m.Screenshot,
}
ANSWERS: dict[str, Any] = {
    "screenshot": {"tab_id": 7, "mime": "image/png", "width": 1, "height": 1, "data": "AA=="},
}
FIXED = {"check": {"checked": True}, "uncheck": {"checked": False}}
BRIDGE_ONLY = {"snapshot"}  # the bridge's own parameter: it asks for the page after the action


def _built() -> dict[str, CompositeTool]:
    build_server(Backend(FakePool()))  # fills each tool's schema
    return {tool.name: tool for tool in TOOLS}


def _declared() -> dict[str, Action]:
    return {a.name: a for a in _built()["interact"].actions.values() if a.command is not None}


def test_each_tools_schema_lists_exactly_what_its_actions_take() -> None:
    for tool in _built().values():
        taken = {p for action in tool.actions.values() for p in action.params}
        assert set(tool.schema["properties"]) == taken | {tool.selector, "browser"}, tool.name


def test_the_declared_actions_take_all_of_their_wire_struct() -> None:
    declared = _declared()
    assert {name: a.command for name, a in declared.items()} == DECLARED
    for name, action in declared.items():
        fields = wire_fields(action.command)
        wanted = set(fields) - set(FIXED.get(name, {}))
        assert set(action.params) - BRIDGE_ONLY == wanted, name
        assert action.required == {k for k, (_t, req) in fields.items() if req}, name


def _sample(schema: dict[str, Any], defs: dict[str, Any], name: str) -> Any:
    """A value the schema accepts that differs from the wire's default (so a lost one shows)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _sample(defs[ref.removeprefix("#/$defs/")], defs, name)
    if "anyOf" in schema:
        return _sample(schema["anyOf"][0], defs, name)
    if "enum" in schema:
        return schema["enum"][-1]
    kind = schema.get("type")
    if kind == "string":
        return f"x-{name}"
    if kind == "integer":
        return schema.get("maximum", 7)
    if kind == "boolean":
        return True
    if kind == "array":
        return [_sample(schema["items"], defs, name)]
    if kind == "object":
        props = cast(dict[str, Any], schema["properties"])
        return {k: _sample(v, defs, k) for k, v in props.items()}
    raise AssertionError(f"no sample for {name}: {schema}")


@pytest.mark.parametrize("name", sorted(DECLARED))
async def test_every_argument_reaches_the_wire_in_its_own_field(name: str) -> None:
    tool = _built()["interact"]
    schema = tool.schema
    action = tool.actions[name]
    args = {
        p: _sample(schema["properties"][p], schema.get("$defs", {}), p)
        for p in action.params
        if p not in BRIDGE_ONLY
    }
    if "snapshot" in action.params:
        args["snapshot"] = "none"
    tag = m.tag_of(DECLARED[name])
    pool = FakePool(answers={tag: ANSWERS.get(tag, {"tab_id": 7})})
    result = await call(pool, "interact", action=name, **args)
    assert not result.is_error, payload(result)
    [(sent, _browser)] = pool.sent
    assert type(sent) is DECLARED[name]
    expected = {k: v for k, v in args.items() if k not in BRIDGE_ONLY} | FIXED.get(name, {})
    assert {k: msgspec.to_builtins(getattr(sent, k)) for k in expected} == expected


async def test_absent_arguments_take_the_wire_defaults() -> None:
    pool = FakePool(answers={"click": {"tab_id": 7}})
    assert not (await call(pool, "interact", action="click", ref="@e2", snapshot="none")).is_error
    [(sent, _browser)] = pool.sent
    assert sent == m.Click(id=0, ref="@e2")


async def test_an_action_default_replaces_the_wire_default_only_when_absent() -> None:
    pool = FakePool(answers=ANSWERS)
    assert not (await call(pool, "interact", action="screenshot")).is_error
    assert not (await call(pool, "interact", action="screenshot", timeout_ms=300)).is_error
    assert [cast(m.Screenshot, sent).timeout_ms for sent, _browser in pool.sent] == [10_000, 300]


async def test_a_missing_required_field_is_refused_and_nothing_is_sent() -> None:
    pool = FakePool()
    out = payload(await call(pool, "interact", action="fill", ref="@e1"))
    assert out["error"] == ErrorCode.INVALID_PARAMS
    assert pool.sent == []


@pytest.mark.parametrize(
    ("args", "field", "guess"),
    [
        ({"action": "click", "ref": "@e1", "clickcount": 2}, "clickcount", "click_count"),
        ({"action": "fill_form", "fields": [{"ref": "@e1", "valu": "x"}]}, "fields[0].valu", "value"),
        ({"action": "hover", "selectr": "a"}, "selectr", "selector"),
    ],
)
async def test_an_unknown_field_of_an_element_action_is_refused(
    args: dict[str, Any], field: str, guess: str
) -> None:
    pool = FakePool()
    out = payload(await call(pool, "interact", **args))
    assert out["error"] == ErrorCode.INVALID_PARAMS
    assert out["data"]["field"] == field
    assert f'"{guess}"' in out["message"]
    assert pool.sent == []


async def _run(call: Call, command: m.Command) -> dict[str, Any]:
    return {}


class _Misnamed(TypedDict):
    ref: str
    valu: str


@pytest.mark.parametrize(
    ("command", "refine"),
    [
        (m.Click, {"click_count": str}),
        (m.Click, {"button": Literal[1, 2]}),
        (m.Click, {"modifiers": str}),
        (m.FillForm, {"fields": list[_Misnamed]}),
    ],
)
def test_a_refinement_that_changes_what_a_field_means_on_the_wire_is_refused(
    command: type[m.Command], refine: dict[str, Any]
) -> None:
    with pytest.raises(TypeError):
        from_struct(command, "x", _run, dict, refine=refine)


def test_every_refinement_is_used_by_an_element_action() -> None:
    taken = {p for action in _declared().values() for p in action.params}
    assert set(elements.FIELDS) <= taken
