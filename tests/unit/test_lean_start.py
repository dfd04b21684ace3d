"""What `tabpilot mcp` and `tabpilot native` load before their first answer, in a fresh interpreter: an
agent waits for the one at every start, a browser starts the other with every profile and reload, and
neither needs the engine (or page conversion) for that answer. `python -m bench startup` times both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Loaded by the bridge all the same: it scrubs URLs out of its own log lines.
_BRIDGE_MAY_LOAD = {"tabpilot.engine", "tabpilot.engine.urlscrub"}

_BRIDGE = textwrap.dedent(
    """
    import json, sys
    import anyio
    from tabpilot.bridge import server  # what `tabpilot mcp` runs
    from tabpilot.bridge.tools.app import BridgeTools
    from tabpilot.bridge.tools.base import Backend
    from tabpilot.link.client import BrowserPool

    async def main():
        pool = BrowserPool()
        listed = await BridgeTools(Backend(pool)).list_tools()
        await pool.aclose()
        return [t.name for t in listed]

    tools = anyio.run(main)
    print(json.dumps({"tools": tools, "modules": sorted(sys.modules)}))
    """
)

_HOST = textwrap.dedent(
    """
    import asyncio, json, sys
    from typing import Any, cast
    from tabpilot import paths
    from tabpilot.native import command  # what `tabpilot native` runs
    from tabpilot.native.host import NativeHost

    host = NativeHost(cast(Any, None), paths.runtime_dir())
    before = sorted(sys.modules)
    engine = host.engine
    print(json.dumps({"before": before, "after": sorted(sys.modules), "same": engine is host.engine}))
    """
)


def _run(code: str, env: dict[str, str]) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def _ours(modules: list[str], package: str) -> set[str]:
    return {m for m in modules if m == package or m.startswith(package + ".")}


def test_the_bridge_lists_its_tools_without_the_engine_or_page_conversion(tp_dirs: dict[str, str]) -> None:
    found = _run(_BRIDGE, tp_dirs)
    assert found["tools"] == ["interact", "observe", "configure"]
    assert _ours(found["modules"], "tabpilot.engine") <= _BRIDGE_MAY_LOAD
    assert "tabpilot.markdown.convert" not in found["modules"]
    assert "tabpilot.native.host" not in found["modules"]


def test_the_native_host_loads_the_engine_at_its_first_request_for_it(tp_dirs: dict[str, str]) -> None:
    found = _run(_HOST, tp_dirs)
    before, after = set(found["before"]), set(found["after"])
    assert "tabpilot.native.engine_port" not in before
    assert "tabpilot.engine.jobs" not in before and "tabpilot.engine.store" not in before
    assert {"tabpilot.native.engine_port", "tabpilot.engine.jobs", "tabpilot.engine.store"} <= after
    assert found["same"]
