"""A host that will not listen says why where the waiting command looks, and the launcher reports it
at once: here with the real `tabpilot native` behind a stand-in browser (no Chromium needed)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tabpilot import paths
from tabpilot.browser import launch, process, profile
from tabpilot.link import refusal
from tabpilot.wire.errors import ErrorCode, TabPilotError

# A browser's part in the launch, played by a script: given the profile folder, it starts the native
# host as the browser would, says hello as the extension would (the profile's instance id, and its
# launch config's profile and pilot), keeps the port open and answers nothing.
_FAKE_BROWSER = """#!{python}
import json, struct, subprocess, sys, time
folder = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--user-data-dir="))
instance = open(folder + "/instance-id").read().strip()
config = json.load(open(folder + "/extension/launch-config.json"))
host = subprocess.Popen([sys.executable, "-m", "tabpilot.cli", "native", "{origin}"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
hello = json.dumps({{"type": "hello", "protocol": 1, "extension_version": "0.1.0", "instance_id": instance,
    "browser_name": "Stand-in", "browser_version": "1", "label": config["label"],
    "profile": config["profile"], "pilot": config["pilot"]}}).encode()
host.stdin.write(struct.pack("<I", len(hello)) + hello)
host.stdin.flush()
time.sleep(60)
"""


def test_a_refusal_is_read_back_only_for_its_instance_and_time(tp_dirs: dict[str, str]) -> None:
    before = time.time()
    refusal.write("abc123", TabPilotError(ErrorCode.INSECURE_SOCKET_DIR, "mode 0755. Fix: chmod 700 x"))
    found = refusal.read("abc123", since=before)
    assert found is not None and found.code == ErrorCode.INSECURE_SOCKET_DIR
    assert found.message.endswith("mode 0755. Fix: chmod 700 x")
    assert refusal.read("abc123", since=time.time() + 1) is None, "an older refusal is not this launch's"
    assert refusal.read("other") is None
    assert [e.code for e in refusal.standing()] == [ErrorCode.INSECURE_SOCKET_DIR], "this process is alive"
    refusal.clear("abc123")
    assert refusal.read("abc123") is None and refusal.standing() == []
    refusal.write("../escape", TabPilotError(ErrorCode.INSECURE_SOCKET_DIR, "x"))
    assert not (Path(tp_dirs[paths.ENV_STATE]) / "escape.json").exists()


def test_launch_reports_the_hosts_refusal_at_once(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    run = Path(tp_dirs[paths.ENV_RUNTIME])
    run.mkdir()
    os.chmod(run, 0o755)
    fake = tmp_path / "fake-chromium"
    fake.write_text(_FAKE_BROWSER.format(python=sys.executable, origin=paths.EXTENSION_ORIGIN))
    fake.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(TabPilotError) as info:
        launch.launch_profile("refused", headless=True, browser_binary=str(fake), timeout_s=50)
    took = time.monotonic() - started
    first = info.value.message.splitlines()[0]
    assert info.value.code == ErrorCode.INSECURE_SOCKET_DIR, info.value.message
    assert "refused to listen" in first and f"chmod 700 '{run}'" in first
    assert took < 40, f"waited {took:.1f} s: the launcher sat out its timeout"
    assert process.running_pid(profile.profile_dir("refused")) is None, "the browser was stopped"


def test_a_host_that_listens_clears_its_old_refusal(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    fake = tmp_path / "fake-chromium"
    fake.write_text(_FAKE_BROWSER.format(python=sys.executable, origin=paths.EXTENSION_ORIGIN))
    fake.chmod(0o755)
    folder = profile.profile_dir("fine")
    folder.mkdir(parents=True)
    instance = profile.instance_id(folder)
    refusal.write(instance, TabPilotError(ErrorCode.INSECURE_SOCKET_DIR, "an old one"))
    launched = launch.launch_profile("fine", headless=True, browser_binary=str(fake), timeout_s=50)
    try:
        assert refusal.read(instance) is None
    finally:
        launched.stop(timeout_s=5)
