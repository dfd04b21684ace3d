"""A dedicated profile is started where it lives, with the pilot as its person last chose: through
`launch_profile` (which `browser launch`, `mcp --launch`, `scrape --profile` and the demo all use),
with a stand-in browser running the real native host."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabpilot import paths
from tabpilot.browser import launch, profile, registry
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.link.test_refusal import _FAKE_BROWSER

pytestmark = pytest.mark.anyio


@pytest.fixture
def fake(tmp_path: Path) -> str:
    path = tmp_path / "fake-chromium"
    path.write_text(_FAKE_BROWSER.format(python=sys.executable, origin=paths.EXTENSION_ORIGIN))
    path.chmod(0o755)
    return str(path)


def _start(name: str, fake: str, **kw: object) -> launch.LaunchedBrowser:
    return launch.launch_profile(name, headless=True, browser_binary=fake, timeout_s=50, **kw)  # type: ignore[arg-type]


def _config(folder: Path) -> dict[str, object]:
    return json.loads((folder / profile.EXTENSION_COPY / profile.LAUNCH_CONFIG).read_text())


def test_a_profile_launched_elsewhere_starts_there_again_with_its_pilot(
    tp_dirs: dict[str, str], tmp_path: Path, fake: str
) -> None:
    elsewhere = (tmp_path / "udd").resolve()
    first = _start("p", fake, user_data_dir=elsewhere, pilot=True)
    first.stop(timeout_s=5)
    nonce = _config(elsewhere)["nonce"]
    # Named alone (as `mcp --launch p` does): the folder and the opt-in come back, the config unchanged.
    again = _start("p", fake)
    try:
        assert again.user_data_dir == elsewhere and again.pilot is True
        assert _config(elsewhere)["nonce"] == nonce, "a kept config is not applied a second time"
        assert not profile.profile_dir("p").exists(), "nothing was started in the default folder"
    finally:
        again.stop(timeout_s=5)
    off = _start("p", fake, pilot=False)
    off.stop(timeout_s=5)
    assert off.user_data_dir == elsewhere and off.pilot is False and _config(elsewhere)["pilot"] is False


def test_a_new_profile_starts_with_the_pilot_off(tp_dirs: dict[str, str], fake: str) -> None:
    fresh = _start("q", fake)
    fresh.stop(timeout_s=5)
    assert fresh.pilot is False and fresh.user_data_dir == registry.locate("q") == profile.profile_dir("q")


async def test_a_pilot_off_refusal_names_the_command_that_opts_the_profile_in(
    tp_dirs: dict[str, str], fake: str
) -> None:
    launched = _start("r", fake)
    pool = BrowserPool(connect_wait_s=5)
    try:
        with pytest.raises(TabPilotError) as info:
            await pool.call(m.WorkflowOp(id=0, op="list"), timeout_s=30)
    finally:
        await pool.aclose()
        launched.stop(timeout_s=5)
    assert info.value.code == ErrorCode.AI_WEB_PILOT_DISABLED
    assert "tabpilot browser launch --profile r --pilot" in info.value.message.splitlines()[0]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    # A process of its own: a detached launch leaves its browser running after the command has ended.
    done = subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", *args], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    return done


def test_browser_launch_says_which_pilot_it_kept(tp_dirs: dict[str, str], tmp_path: Path, fake: str) -> None:
    udd = str((tmp_path / "w").resolve())
    common = ["browser", "launch", "--profile", "w", "--headless", "--detach", "--browser-binary", fake]
    _cli(*common, "--user-data-dir", udd, "--pilot")
    _cli("browser", "stop", "--profile", "w")
    try:
        kept = _cli(*common)
        shown = json.loads(kept.stdout)
        assert shown["user_data_dir"] == udd and shown["pilot"] is True
        assert "AI Web Pilot is on, as at this profile's last launch" in kept.stderr
        listed = json.loads(_cli("browser", "list", "--json").stdout)
        assert [(r["profile"], r["user_data_dir"], bool(r["pid"])) for r in listed] == [("w", udd, True)]
    finally:
        _cli("browser", "stop", "--profile", "w")
