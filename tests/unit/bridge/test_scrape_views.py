"""One description of the scrape request: every field the wire type (wire/scrape.py) takes reads the same
in the MCP input schema of `interact {action: "scrape"}` and is taken, with the same meaning, by the
MCP call and by `tabpilot scrape FILE` (and the replay command's flags). A field added, renamed or
retyped in one place and not the others fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from click.testing import CliRunner

from tabpilot import cli
from tabpilot.bridge.tools.interact import INTERACT
from tabpilot.scrapecli import commands
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tabpilot.wire.scrape import REQUEST_TYPES, ScrapeRequest, parse_request
from tests.unit.bridge.test_scrape import ProgressPool
from tests.unit.bridge.test_tools import FakePool, call

pytestmark = pytest.mark.anyio

MISSING = object()


class View(msgspec.Struct, frozen=True):
    """What a field is: its JSON kind, its choices, its default (MISSING: none stated), whether required."""

    kind: str | None
    choices: tuple[Any, ...] | None
    default: Any
    required: bool


def _kind(info: mi.Type) -> tuple[str | None, tuple[Any, ...] | None, mi.Type]:
    while True:
        if isinstance(info, mi.Metadata):
            info = info.type
        elif isinstance(info, mi.UnionType):
            [info] = [t for t in info.types if not isinstance(t, mi.NoneType)]
        else:
            break
    if isinstance(info, mi.LiteralType):
        return "string", tuple(sorted(info.values)), info
    kinds = {
        mi.StrType: "string",
        mi.IntType: "integer",
        mi.BoolType: "boolean",
        mi.DictType: "object",
        mi.StructType: "object",
        mi.ListType: "array",
        mi.AnyType: None,
    }
    return kinds[type(info)], None, info


def wire_view(struct: mi.StructType, at: str = "") -> dict[str, View]:
    """path -> View of every field of `struct` and of the structs inside it, from the wire type."""
    out: dict[str, View] = {}
    for f in struct.fields:
        kind, choices, inner = _kind(f.type)
        default = f.default if f.default not in (mi.NODEFAULT, None) else MISSING
        out[at + f.encode_name] = View(kind, choices, default, f.required)
        if isinstance(inner, mi.StructType):
            out.update(wire_view(inner, f"{at}{f.encode_name}."))
    return out


def mcp_view(props: dict[str, Any], required: list[str], at: str = "") -> dict[str, View]:
    """path -> View of every property in an MCP input schema and of the objects inside it."""
    out: dict[str, View] = {}
    for name, schema in props.items():
        enum = schema.get("enum")
        kind = schema.get("type", "string" if enum else None)
        choices = tuple(sorted(enum)) if enum else None
        out[at + name] = View(kind, choices, schema.get("default", MISSING), name in required)
        if "properties" in schema:
            out.update(mcp_view(schema["properties"], schema.get("required", []), f"{at}{name}."))
    return out


def _wire() -> dict[str, tuple[str, View]]:
    """path -> (the first operation that takes it, its View), over every request type."""
    out: dict[str, tuple[str, View]] = {}
    for member in REQUEST_TYPES:
        info = mi.type_info(member)
        assert isinstance(info, mi.StructType) and isinstance(info.tag, str)
        for path, view in wire_view(info).items():
            out.setdefault(path, (info.tag, view))
    return out


WIRE = _wire()


def _mcp() -> dict[str, View]:
    from tabpilot.bridge.tools.app import build_server
    from tabpilot.bridge.tools.base import Backend

    build_server(Backend(FakePool()))  # fills the tool's input schema
    return mcp_view(INTERACT.published["properties"], [])  # as tools/list shows it


def test_the_mcp_schema_says_what_the_wire_takes() -> None:
    mcp = _mcp()
    scrape = INTERACT.actions["scrape"]
    top = {p for p in WIRE if "." not in p}
    assert set(scrape.params) == top | {"operation", "wait_ms"}, (
        "the action takes exactly the request's fields"
    )
    nested = {p for p in mcp if "." in p and p.split(".")[0] in top}
    assert nested == {p for p in WIRE if "." in p}, "the same fields inside each object"
    for path, (_op, wire) in WIRE.items():
        said = mcp[path]
        assert (said.kind, said.choices) == (wire.kind, wire.choices), path
        if "." in path:  # inside an object the schema states each default, and which fields are required
            assert (said.default, said.required) == (wire.default, wire.required), path
        else:  # the tool's flat arguments leave the defaults to the wire, one per operation
            assert said.default is MISSING, path
    assert mcp["operation"].choices == tuple(sorted(t.__struct_config__.tag for t in REQUEST_TYPES))


def _sample(info: mi.Type) -> Any:
    """A value of this type the wire takes (bounds respected), required fields filled in."""
    _k, choices, inner = _kind(info)
    if choices:
        return choices[0]
    if isinstance(inner, mi.IntType):
        return max(inner.ge or 0, 1)
    if isinstance(inner, mi.StrType | mi.BoolType | mi.AnyType):
        return {mi.StrType: "x", mi.BoolType: True, mi.AnyType: 1}[type(inner)]
    if isinstance(inner, mi.DictType):
        return {"a": _sample(inner.value_type)}
    if isinstance(inner, mi.ListType):
        return [_sample(inner.item_type)]
    assert isinstance(inner, mi.StructType), inner
    return {f.encode_name: _sample(f.type) for f in inner.fields if f.required}


def _request(path: str, value: Any) -> dict[str, Any]:
    """The smallest request of the operation that takes `path`, holding `value` there."""
    operation = WIRE[path][0]
    member = next(t for t in REQUEST_TYPES if t.__struct_config__.tag == operation)
    node: dict[str, Any] = {"operation": operation}
    request, info = node, mi.type_info(member)
    *parents, last = path.split(".")
    for part in parents:
        assert isinstance(info, mi.StructType)
        field = next(f for f in info.fields if f.encode_name == part)
        _k, _c, info = _kind(field.type)
        node[part] = _sample(field.type)
        node = node[part]
    node[last] = value
    return request


def _cases() -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    for path in WIRE:
        operation = WIRE[path][0]
        member = next(t for t in REQUEST_TYPES if t.__struct_config__.tag == operation)
        info: Any = mi.type_info(member)
        for part in path.split("."):
            field = next(f for f in info.fields if f.encode_name == part)
            _k, choices, info = _kind(field.type)
        values = list(choices) if choices else [_sample(field.type)]
        cases += [(path, v) for v in values]
    return cases


def _cli_reads(request: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What `tabpilot scrape FILE` would run for this file (None: it refused it)."""
    ran: list[ScrapeRequest] = []
    monkeypatch.setattr(commands, "_run", lambda typed, *_a: ran.append(typed))  # pyright: ignore
    # The command looks the id up on disk before anything else: here, as if it were recorded.
    monkeypatch.setattr(commands.workflowfiles, "store", lambda: _Recorded())
    path = tmp_path / "req.json"
    path.write_text(json.dumps(request))
    done = CliRunner().invoke(cli.main, ["scrape", str(path), "-q"])
    if not ran:
        assert done.exit_code == 1 and f"[{ErrorCode.INVALID_PARAMS}]" in done.output, done.output
        return None
    return msgspec.to_builtins(ran[0])


async def _mcp_reads(request: dict[str, Any]) -> Any:
    """What `interact {action: "scrape", ...}` sends to the host for these arguments (None: refused)."""
    pool = ProgressPool(answers={"scrape": {"status": "complete", "correlation_id": "c"}})
    result = await call(pool, "interact", action="scrape", **request)
    if result.is_error:
        assert result.structured_content is not None
        assert result.structured_content["error"] == ErrorCode.INVALID_PARAMS, result.structured_content
        return None
    [(command, _browser)] = pool.sent
    assert isinstance(command, m.Scrape)
    return msgspec.to_builtins(command.request)


@pytest.mark.parametrize(("path", "value"), _cases(), ids=lambda x: str(x))
async def test_mcp_and_cli_take_every_field_with_the_same_meaning(
    path: str, value: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tp_dirs: dict[str, str]
) -> None:
    request = _request(path, value)
    by_cli = _cli_reads(request, tmp_path, monkeypatch)
    assert by_cli is not None, f"the CLI refused {request}"
    by_mcp = await _mcp_reads(request)
    # Over MCP a run that does not ask for its account does not gather the page telemetry either (the
    # lean result leaves it out): the one difference, and none in a recording.
    if by_cli["options"]["telemetry"] is None and not by_cli.get("record"):
        by_cli_over_mcp = {**by_cli, "options": {**by_cli["options"], "telemetry": False}}
    else:
        by_cli_over_mcp = by_cli
    assert by_cli_over_mcp == by_mcp
    node = by_cli
    for part in path.split("."):
        node = node[part]
    assert node == value if not isinstance(value, dict) else {k: node[k] for k in value} == value


async def test_mcp_and_cli_refuse_a_value_of_the_wrong_kind_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tp_dirs: dict[str, str]
) -> None:
    for path, (_op, view) in WIRE.items():
        if view.kind is None:
            continue
        wrong = {"string": 7, "integer": "seven", "boolean": "yes", "object": 7, "array": 7}[view.kind]
        if view.choices:
            wrong = "not-a-choice"
        request = _request(path, wrong)
        assert _cli_reads(request, tmp_path, monkeypatch) is None, path
        assert await _mcp_reads(request) is None, path


class _Recorded:
    def get(self, workflow_id: str, *, touch: bool = True) -> None:
        """Any id is recorded."""


def test_the_replay_command_builds_the_request_the_wire_reads(
    monkeypatch: pytest.MonkeyPatch, tp_dirs: dict[str, str]
) -> None:
    ran: list[ScrapeRequest] = []
    monkeypatch.setattr(commands, "_run", lambda typed, *_a: ran.append(typed))  # pyright: ignore
    # The command looks the id up on disk before anything else: here, as if it were recorded.
    monkeypatch.setattr(commands.workflowfiles, "store", lambda: _Recorded())
    flags = ["--param", "user=ann", "--override", 'steps[0].url="https://b.test/"', "--allow-domain-change"]
    for args, fields in (
        ([], {}),
        (flags, {"params": {"user": "ann"}, "override_params": {"steps[0].url": "https://b.test/"}}),
    ):
        done = CliRunner().invoke(cli.main, ["replay", "wf-1", *args, "-q"])
        assert done.exit_code == 0, done.output
        wanted = {"operation": "replay", "workflow_id": "wf-1", **fields}
        if args:
            wanted["allow_domain_change"] = True
        assert ran.pop() == parse_request(wanted)
