"""What a newcomer meets in real Chromium: a profile the agent starts is the one its person opted in,
where it lives; a pilot-off refusal names the command that opts a profile in; and a host that will
not listen is reported by its cause and fix in the first line, well before the launch timeout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.support import browser, procnet
from tests.support.mcp_client import call, call_error, mcp_client

pytestmark = pytest.mark.anyio


def _running(env: dict[str, str]) -> dict[str, str]:
    listed = json.loads(browser.tabpilot_cli("browser", "list", "--json", env=env).stdout)
    return {row["profile"]: row["user_data_dir"] for row in listed if row["pid"]}


async def test_the_bridge_starts_a_profile_where_it_lives_with_its_pilot(
    env: dict[str, str], site: str, tmp_path: Path
) -> None:
    folder = str((Path(env["TABPILOT_DATA_DIR"]).parent / "elsewhere").resolve())
    launch = ("browser", "launch", "--headless", "--detach")
    browser.tabpilot_cli(*launch, "--profile", "p", "--user-data-dir", folder, "--pilot", env=env)
    browser.tabpilot_cli("browser", "stop", "--profile", "p", env=env)
    try:
        async with mcp_client(env, "--launch", "p", "--headless") as client:
            nav = await call(client, "interact", action="navigate", url=f"{site}/second.html")
            assert nav["title"] == "Second fixture page"
            assert _running(env) == {"p": folder}, "started in the folder it was launched with"
        browser.tabpilot_cli("browser", "stop", "--profile", "p", env=env)
        # A profile nobody opted in: the refusal says how its person does.
        async with mcp_client(env, "--launch", "q", "--headless") as client:
            err = await call_error(client, "interact", action="navigate", url=f"{site}/second.html")
            assert err["error"] == "ai_web_pilot_disabled"
            assert "tabpilot browser launch --profile q --pilot" in err["message"]
    finally:
        for name in ("p", "q"):
            browser.tabpilot_cli("browser", "stop", "--profile", name, env=env)
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")


def test_a_host_refusal_is_the_launchs_first_line() -> None:
    # Folders of its own: an open runtime folder must not reach another test's browser.
    base = Path(tempfile.mkdtemp(prefix="tpr", dir="/tmp"))
    env = {f"TABPILOT_{k}_DIR": str(base / k.lower()) for k in ("RUNTIME", "STATE", "DATA")}
    run = Path(env["TABPILOT_RUNTIME_DIR"])
    run.mkdir()
    os.chmod(run, 0o755)
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabpilot.cli",
            *("browser", "launch", "--profile", "r", "--headless", "--detach"),
        ],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    took = time.monotonic() - started
    first = done.stderr.splitlines()[0]
    assert done.returncode == 1
    assert first.startswith("Error: [insecure_socket_dir] ") and f"chmod 700 '{run}'" in first, done.stderr
    assert took < 20, f"{took:.1f} s: the launcher waited out its 20 s timeout"
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
    shutil.rmtree(base, ignore_errors=True)
