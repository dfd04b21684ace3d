"""The official MCP Inspector CLI against `tabpilot mcp` and a real browser: it lists the tools with its
schema-portability check in strict mode, and calls one that reads the browser."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from selenium import webdriver

from tests.support import browser
from tests.support.mcp_client import TABPILOT
from tests.unit.bridge.test_metadata import PEER_TOOLS_LIST_BYTES

INSPECTOR = Path(__file__).resolve().parents[1] / "npm" / "node_modules" / ".bin" / "inspector"


def _inspector(env: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # `./dev test` installs it (npm ci in tests/npm); a missing one is a failed setup, not a skip.
    assert INSPECTOR.exists(), "run `./dev test` once: it installs tests/npm (the MCP Inspector)"
    # Its catalog lives in HOME: a private one keeps the real ~/.mcp-inspector untouched. Like other
    # MCP clients it hands the server only a few variables of its own environment: pass ours with -e.
    passed = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    return subprocess.run(
        [str(INSPECTOR), "--cli", *passed, TABPILOT, "mcp", *args],
        env={**os.environ, **env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_inspector_lists_the_tools_strictly_and_calls_one(
    driver: webdriver.Chrome, env: dict[str, str], site: str, tmp_path: Path
) -> None:
    listed = _inspector(env, tmp_path, "--strict", "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "Warning" not in listed.stderr, listed.stderr
    tools: list[dict[str, Any]] = json.loads(listed.stdout)["tools"]
    assert [t["name"] for t in tools] == ["interact", "observe", "configure"]
    assert all(t["title"] and t["outputSchema"]["properties"] for t in tools)
    assert tools[1]["annotations"]["readOnlyHint"] is True
    assert len(json.dumps({"tools": tools}, separators=(",", ":"))) <= PEER_TOOLS_LIST_BYTES

    browser.set_pilot(driver, True)
    driver.get(f"{site}/index.html")
    called = _inspector(
        env, tmp_path, "--method", "tools/call", "--tool-name", "observe", "--tool-arg", "what=tabs"
    )
    assert called.returncode == 0, called.stdout + called.stderr
    result = json.loads(called.stdout)
    assert result["isError"] is False
    urls = [tab["url"] for tab in result["structuredContent"]["tabs"]]
    assert f"{site}/index.html" in urls
