"""Dedicated profiles without a browser: prefs, extension copy, launch config, argv, pids, refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabpilot import paths
from tabpilot.browser import argv, launch, process, profile
from tabpilot.wire.errors import ErrorCode, TabPilotError

EXT = paths.EXTENSION_ID


def test_profile_dir_and_name_check(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    assert profile.profile_dir("work") == Path(tp_dirs[paths.ENV_DATA]) / "profiles" / "work"
    assert profile.profile_dir("x", tmp_path / "u") == (tmp_path / "u").resolve()
    for bad in ("../up", "", ".hidden", "a/b", "x" * 65):
        with pytest.raises(TabPilotError) as info:
            profile.profile_dir(bad)
        assert info.value.code == ErrorCode.INVALID_PARAMS


def test_instance_id_is_created_once(tmp_path: Path) -> None:
    first = profile.instance_id(tmp_path / "p")
    assert len(first) == 16 and int(first, 16) >= 0
    assert profile.instance_id(tmp_path / "p") == first
    (tmp_path / "p" / "instance-id").write_text("garbage")
    assert profile.instance_id(tmp_path / "p") != first


def test_prefs_are_created(tmp_path: Path) -> None:
    path = profile.write_prefs(tmp_path)
    prefs = json.loads(path.read_text())
    assert path == tmp_path / "Default" / "Preferences"
    assert prefs["extensions"]["ui"]["developer_mode"] is True
    assert prefs["extensions"]["settings"][EXT]["user_scripts_enabled"] is True


def test_prefs_merge_keeps_existing_settings(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir()
    existing = {
        "extensions": {
            "ui": {"developer_mode": False, "other": 1},
            "settings": {EXT: {"location": 4, "path": "/x"}, "otherext": {"state": 1}},
        },
        "browser": {"window_placement": {"top": 3}},
    }
    path.write_text(json.dumps(existing))
    prefs = json.loads(profile.write_prefs(tmp_path).read_text())
    assert prefs["extensions"]["ui"] == {"developer_mode": True, "other": 1}
    assert prefs["extensions"]["settings"][EXT] == {"location": 4, "path": "/x", "user_scripts_enabled": True}
    assert prefs["extensions"]["settings"]["otherext"] == {"state": 1}
    assert prefs["browser"] == {"window_placement": {"top": 3}}


def test_unreadable_prefs_are_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "Default" / "Preferences"
    path.parent.mkdir()
    path.write_text("{broken")
    profile.write_prefs(tmp_path)
    assert (tmp_path / "Default" / "Preferences.unreadable").read_text() == "{broken"
    assert json.loads(path.read_text())["extensions"]["ui"]["developer_mode"] is True


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "manifest.json").write_text('{"manifest_version": 3}')
    (src / "lib" / "a.js").write_text("export {}")
    (src / "launch-config.json").write_text('{"pilot": true}')  # a stray one must not be copied
    return src


def test_extension_copy_and_launch_config(tmp_path: Path) -> None:
    folder = tmp_path / "prof"
    config = profile.launch_config("work", "0123456789abcdef", pilot=True)
    target = profile.copy_extension(folder, config, source=_source(tmp_path))
    assert target == folder / "extension"
    assert (target / "lib" / "a.js").read_text() == "export {}"
    written = json.loads((target / "launch-config.json").read_text())
    assert written == config
    assert written["pilot"] is True and written["profile"] == "work"
    assert written["instance_id"] == "0123456789abcdef"
    assert written["label"] == "TabPilot profile work"
    assert len(written["nonce"]) == 32


def test_extension_copy_is_refreshed_each_launch(tmp_path: Path) -> None:
    folder = tmp_path / "prof"
    src = _source(tmp_path)
    profile.copy_extension(folder, profile.launch_config("p", "0123456789abcdef", True), source=src)
    (src / "lib" / "a.js").unlink()
    (src / "b.js").write_text("new")
    second = profile.launch_config("p", "0123456789abcdef", False)
    target = profile.copy_extension(folder, second, source=src)
    assert not (target / "lib" / "a.js").exists()
    assert (target / "b.js").read_text() == "new"
    assert json.loads((target / "launch-config.json").read_text())["pilot"] is False
    assert second["nonce"] != profile.launch_config("p", "0123456789abcdef", False)["nonce"]


def test_a_changed_extension_copy_drops_the_profile_s_service_worker_registrations(tmp_path: Path) -> None:
    # Chrome would run the worker it registered for the old copy against the new copy's page files.
    folder = tmp_path / "prof"
    workers = folder / "Default" / "Service Worker"
    src = _source(tmp_path)

    def launch() -> bool:
        """Copy the extension as a launch does; whether the registrations were kept."""
        (workers / "ScriptCache").mkdir(parents=True, exist_ok=True)
        profile.copy_extension(folder, profile.launch_config("p", "0123456789abcdef", True), source=src)
        return workers.exists()

    assert launch() is False  # a profile's first copy (or one from before the digest was kept)
    assert launch() is True  # the same files, a new launch config: the registrations stay
    (src / "lib" / "a.js").write_text("export const changed = 1;")
    assert launch() is False
    assert launch() is True


def test_extension_copy_refuses_missing_source(tmp_path: Path) -> None:
    with pytest.raises(TabPilotError) as info:
        profile.copy_extension(tmp_path / "p", {}, source=tmp_path / "nothing")
    assert info.value.code == ErrorCode.LAUNCH_FAILED


def test_argv_for_root_headless_with_url(tmp_path: Path) -> None:
    got = argv.build_argv(
        "/usr/bin/chromium",
        tmp_path / "u",
        tmp_path / "u" / "extension",
        headless=True,
        url="http://x/",
        as_root=True,
    )
    assert got[0] == "/usr/bin/chromium"
    assert f"--user-data-dir={tmp_path / 'u'}" in got
    assert f"--load-extension={tmp_path / 'u' / 'extension'}" in got
    for flag in (
        "--no-sandbox",
        "--test-type",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--headless=new",
        "--silent-debugger-extension-api",
    ):
        assert flag in got
    assert got[-1] == "http://x/"


def test_argv_headed_non_root_keeps_sandbox(tmp_path: Path) -> None:
    got = argv.build_argv("chromium", tmp_path, tmp_path / "e", as_root=False)
    assert "--no-sandbox" not in got
    assert not any(a.startswith("--headless") for a in got)
    assert got[-1] == "about:blank"


def test_find_binary_prefers_chromium() -> None:
    have = {"chromium": "/usr/bin/chromium", "google-chrome": "/usr/bin/google-chrome"}
    found = argv.find_binary(platform="linux", which=have.get, exists=lambda p: True)
    assert found == argv.Binary("/usr/bin/chromium")


def test_find_binary_branded_gets_a_note() -> None:
    have = {"google-chrome": "/usr/bin/google-chrome"}
    found = argv.find_binary(platform="linux", which=have.get, exists=lambda p: True)
    assert found.path == "/usr/bin/google-chrome"
    assert "137" in found.note


def test_find_binary_none_or_missing_explicit() -> None:
    with pytest.raises(TabPilotError, match="no Chromium found"):
        argv.find_binary(platform="linux", which=lambda n: None, exists=lambda p: False)
    with pytest.raises(TabPilotError, match="not found"):
        argv.find_binary("/nope/chromium", exists=lambda p: False)


def _sleeper(udd: Path) -> subprocess.Popen[bytes]:
    # A stand-in browser: a process whose command line carries --user-data-dir like Chromium's, and
    # which, like Chromium, handles SIGINT itself even when started with it ignored (a background job).
    code = (
        "import signal, sys, time; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, f"--user-data-dir={udd}"], stdout=subprocess.PIPE, start_new_session=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    proc.stdout.close()
    # Until the child has exec'd, /proc shows the parent's command line: wait for its own.
    deadline = time.monotonic() + 10
    while not process.serves(proc.pid, udd):
        assert time.monotonic() < deadline, "stand-in browser did not start"
        time.sleep(0.01)
    return proc


def test_pid_file_and_running_check(tmp_path: Path) -> None:
    proc = _sleeper(tmp_path)
    try:
        process.write_pid(tmp_path, proc.pid)
        assert process.running_pid(tmp_path) == proc.pid
        assert process.running_pid(tmp_path / "other") is None
        # The same pid under another profile folder is not that profile's browser.
        (tmp_path / "other").mkdir()
        process.write_pid(tmp_path / "other", proc.pid)
        assert process.running_pid(tmp_path / "other") is None
        assert not process.pid_file(tmp_path / "other").exists()  # stale pid file removed
    finally:
        proc.kill()
        proc.wait()
    assert process.running_pid(tmp_path) is None


def test_terminate_uses_sigint_then_sigkill(tmp_path: Path) -> None:
    proc = _sleeper(tmp_path)
    assert process.terminate(proc.pid, timeout_s=5).signal == "SIGINT"
    proc.wait()
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            "sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    result = process.terminate(stubborn.pid, timeout_s=0.2)
    assert result.signal == "SIGKILL" and result.stopped
    assert not process.alive(stubborn.pid)
    stubborn.wait()
    stubborn.stdout.close()
    assert process.terminate(stubborn.pid, timeout_s=0.1) == process.Stopped(stubborn.pid, None)


def test_stop_profile_reports_not_running(tp_dirs: dict[str, str]) -> None:
    assert launch.stop_profile("never") == process.Stopped(None, None)


def test_stop_profile_stops_recorded_browser(tp_dirs: dict[str, str]) -> None:
    folder = profile.profile_dir("p1")
    folder.mkdir(parents=True)
    proc = _sleeper(folder)
    process.write_pid(folder, proc.pid)
    result = launch.stop_profile("p1", timeout_s=5)
    assert result == process.Stopped(proc.pid, "SIGINT")
    assert not process.pid_file(folder).exists()
    proc.wait()


def test_second_launch_of_running_profile_is_refused(tp_dirs: dict[str, str]) -> None:
    folder = profile.profile_dir("busy")
    folder.mkdir(parents=True)
    proc = _sleeper(folder)
    process.write_pid(folder, proc.pid)
    try:
        with pytest.raises(TabPilotError) as info:
            launch.launch_profile("busy", headless=True, browser_binary=sys.executable)
        assert info.value.code == ErrorCode.LAUNCH_FAILED
        assert "already running" in info.value.message
    finally:
        proc.kill()
        proc.wait()


def test_singleton_lock_of_a_foreign_browser(tmp_path: Path) -> None:
    os.symlink(f"somehost-{os.getpid()}", tmp_path / "SingletonLock")
    assert process.singleton_pid(tmp_path) == os.getpid()
    (tmp_path / "SingletonLock").unlink()
    os.symlink("somehost-notapid", tmp_path / "SingletonLock")
    assert process.singleton_pid(tmp_path) is None


def test_browser_that_exits_early_fails_with_its_output(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho 'Missing X server or $DISPLAY' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(TabPilotError) as info:
        launch.launch_profile("early", headless=True, browser_binary=str(fake), timeout_s=10)
    assert info.value.code == ErrorCode.LAUNCH_FAILED
    assert "exited with code 1" in info.value.message
    assert "Missing X server" in info.value.message
    folder = profile.profile_dir("early")
    # The launcher registered the host inside the profile and loaded a configured extension copy.
    assert (folder / "NativeMessagingHosts" / "com.tabpilot.host.json").is_file()
    assert (folder / "extension" / "launch-config.json").is_file()
    assert not process.pid_file(folder).exists()


def test_extension_that_never_connects_times_out(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho started >&2\nexec sleep 60\n")
    fake.chmod(0o755)
    with pytest.raises(TabPilotError) as info:
        launch.launch_profile("slow", headless=True, browser_binary=str(fake), timeout_s=0.5)
    assert "did not connect within" in info.value.message and "started" in info.value.message
    assert process.running_pid(profile.profile_dir("slow")) is None


def test_everyday_profile_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    with pytest.raises(TabPilotError, match="everyday profile"):
        launch.launch_profile("x", headless=True, user_data_dir=tmp_path / ".config" / "chromium")
