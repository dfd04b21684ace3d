"""The per-command trace (TABPILOT_TRACE): the real host with a scripted extension writes one line per
browser command of a run, with the extension's own time, and nothing secret."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine import trace
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tests.support.fake_extension import FakeError, FakeExtension

pytestmark = pytest.mark.anyio

PASSWORD = "hunter2-Secret!"
TOKEN = "tok3n-abcdef"


def _site(ext: FakeExtension) -> None:
    ext.handlers["navigate"] = lambda msg: {"tab_id": 5, "url": msg["url"], "title": "Login"}
    ext.handlers["fill"] = lambda msg: {"filled": True, "secret": msg["selector"] == "#pw"}
    ext.handlers["click"] = lambda msg: {"navigated": True, "url": "https://shop.example/list"}
    ext.handlers["extract"] = lambda msg: {
        "rows": [["Widget"]],
        "count": 1,
        "warnings": [],
        "url": "https://shop.example/list",
    }

    def missing(msg: dict[str, Any]) -> Any:
        raise FakeError("element_not_found", f"no {msg['selector']}")

    ext.handlers["hover"] = missing


WORKFLOW = {
    "operation": "workflow",
    "options": {"delay_ms": 0},
    "error_recovery": {"on_failure": "continue"},
    "steps": [
        {"type": "navigate", "url": f"https://me:{PASSWORD}@shop.example/login?token={TOKEN}&page=2#at"},
        {"type": "fill", "selector": "#user", "value": "alice"},
        {"type": "fill", "selector": "#pw", "value": PASSWORD},
        {"type": "click", "selector": "button"},
        {"type": "hover", "selector": ".gone"},
        {"type": "extract", "selector": "tr", "schema": {"name": "td"}},
    ],
}


async def test_a_traced_run_writes_one_line_per_command_and_no_secret(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "trace.jsonl"
    ext = FakeExtension({**tp_dirs, trace.ENV_TRACE: str(path)})
    ext.reply_ms = 1.5
    await ext.start()
    _site(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        out = await pool.call(m.Scrape(id=0, request=WORKFLOW))
        assert out["data"] == [{"name": "Widget"}]
        await pool.call(m.Scrape(id=0, request={**WORKFLOW, "steps": WORKFLOW["steps"][:1]}))
    finally:
        await pool.aclose()
        await ext.stop()
    text = path.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert [x["cmd"] for x in lines] == ["navigate", "fill", "fill", "click", "hover", "extract", "navigate"]
    first, second = lines[:6], lines[6:]
    assert {x["run"] for x in first} != {x["run"] for x in second} and len({x["run"] for x in first}) == 1
    assert all(x["ext_ms"] == 1.5 and x["ms"] >= 0 for x in lines)
    assert [x["at"] for x in first] == sorted(x["at"] for x in first)
    assert all(x["tab"] == 5 for x in first[1:])
    assert lines[0]["url"] == "https://shop.example/login?token=%5BREDACTED%5D&page=2"
    assert lines[4]["error"] == "element_not_found" and "error" not in lines[3]
    for secret in (PASSWORD, TOKEN, "alice", "#pw", ".gone"):
        assert secret not in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


async def test_no_trace_unless_asked(tp_dirs: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(trace.ENV_TRACE, raising=False)
    assert trace.current() is None
    ext = FakeExtension(tp_dirs)
    await ext.start()
    _site(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        out = await pool.call(m.Scrape(id=0, request={**WORKFLOW, "steps": WORKFLOW["steps"][:1]}))
        assert out["status"] == "complete"
    finally:
        await pool.aclose()
        await ext.stop()
    assert not any(p.suffix == ".jsonl" for base in tp_dirs.values() for p in Path(base).rglob("*"))


def test_an_unwritable_trace_stops_tracing_and_the_run_goes_on(tmp_path: Path) -> None:
    t = trace.Trace(str(tmp_path / "missing-dir" / "trace.jsonl"))
    t.command(cmd="navigate")
    t.command(cmd="extract")
    assert not (tmp_path / "missing-dir").exists()


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://a.example/p?page=3&sort=name", "https://a.example/p?page=3&sort=name"),
        ("https://u:pw@a.example:8080/x#frag", "https://a.example:8080/x"),
        (
            "https://a.example/cb?code=XYZ&state=1&api_key=K",
            "https://a.example/cb?code=%5BREDACTED%5D&state=1&api_key=%5BREDACTED%5D",
        ),
        ("http://[::1/", "[unparsable url]"),
    ],
)
def test_safe_url(url: str, safe: str) -> None:
    assert trace.safe_url(url) == safe
