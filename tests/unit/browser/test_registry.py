"""Named dedicated profiles are found where they were launched: `browser stop --profile NAME` and
`browser list` for a profile started with --user-data-dir, and `tabpilot mcp --browser NAME`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot.browser import process, registry
from tabpilot.browser.launch import stop_profile
from tabpilot.link.client import PinnedBrowserPool
from tabpilot.wire import messages as m
from tests.unit.installer.test_doctor import _fake_host, _info


def _fake_browser(folder: Path) -> subprocess.Popen[bytes]:
    """A process whose command line names the user data dir, as the browser's does."""
    code = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); time.sleep(120)"
    proc = subprocess.Popen([sys.executable, "-c", code, f"--user-data-dir={folder}"], start_new_session=True)
    # Popen returns once exec began; the kernel writes the new command line a moment later, and under
    # load a check in between reads no --user-data-dir (as a browser just launched could).
    cmdline, arg = Path(f"/proc/{proc.pid}/cmdline"), f"--user-data-dir={folder}".encode()
    deadline = time.monotonic() + 10
    while cmdline.exists() and arg not in cmdline.read_bytes().split(b"\0") and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc


def test_locate_prefers_where_the_profile_was_launched(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    default = Path(tp_dirs[paths.ENV_DATA]) / "profiles" / "work"
    assert registry.locate("work") == default
    elsewhere = tmp_path / "udd"
    elsewhere.mkdir()
    registry.remember("work", elsewhere)
    assert registry.locate("work") == elsewhere
    assert registry.known() == {"work": elsewhere}
    registry.remember("work", default)  # launched in its default place again: the note goes
    assert registry.locate("work") == default
    assert not (Path(tp_dirs[paths.ENV_DATA]) / registry.INDEX).exists()


def test_stop_by_name_finds_a_profile_launched_with_a_user_data_dir(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "udd"
    folder.mkdir()
    proc = _fake_browser(folder)
    try:
        process.write_pid(folder, proc.pid)
        registry.remember("work", folder)
        listed = json.loads(CliRunner().invoke(cli.main, ["browser", "list", "--json"]).output)
        assert listed == [{"profile": "work", "user_data_dir": str(folder), "pid": proc.pid}]
        result = stop_profile("work", timeout_s=10)
        assert result.stopped and result.pid == proc.pid
        proc.wait(timeout=10)  # stop reaped it already (its own child here): only check it is gone
        assert not process.alive(proc.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    listed = json.loads(CliRunner().invoke(cli.main, ["browser", "list", "--json"]).output)
    assert listed == [{"profile": "work", "user_data_dir": str(folder), "pid": None}]


def test_pinned_pool_sends_unnamed_calls_to_its_browser(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs[paths.ENV_RUNTIME])
    run.mkdir(mode=0o700)

    async def scenario() -> tuple[str, str]:
        first = await _fake_host(
            run / "1111111111111111.sock", _info(instance_id="1111111111111111", label="A", pilot=True)
        )
        second = await _fake_host(
            run / "2222222222222222.sock", _info(instance_id="2222222222222222", label="B", pilot=True)
        )
        async with first, second:
            pool = PinnedBrowserPool("B", run)
            try:
                pinned = await pool.call(m.GetStatus(id=0))
                named = await pool.call(m.GetStatus(id=0), browser="A")
            finally:
                await pool.aclose()
        return pinned["label"], named["label"]

    assert asyncio.run(scenario()) == ("B", "A")
