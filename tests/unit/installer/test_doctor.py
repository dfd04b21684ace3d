"""`tabpilot doctor`: each broken link is reported with its fix, against temp dirs and a fake host."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot.wire import messages as m
from tabpilot.wire.framing import encode_frame, read_frame
from tabpilot_installer import checks, doctor, hosts
from tabpilot_installer.checks import COMMUNICATION, FORBIDDEN, NOT_FOUND
from tabpilot_installer.live import check_browsers, probe_all
from tabpilot_installer.machine import Machine

CMD = "tabpilot install"


def _manifest(tmp_path: Path, **fields: object) -> Path:
    launcher = tmp_path / "launcher"
    launcher.write_text("#!/bin/sh\necho Usage: fake\n")
    launcher.chmod(0o755)
    data: dict[str, object] = {
        "name": paths.HOST_NAME,
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [paths.EXTENSION_ORIGIN],
    }
    data.update(fields)
    path = tmp_path / f"{paths.HOST_NAME}.json"
    path.write_text(json.dumps(data))
    return path


def _failed(found: list[checks.Check]) -> list[checks.Check]:
    return [c for c in found if c.failed]


def test_good_manifest_passes(tmp_path: Path) -> None:
    found, launcher = checks.check_manifest(_manifest(tmp_path), CMD)
    assert _failed(found) == []
    assert launcher == tmp_path / "launcher"


def test_missing_manifest(tmp_path: Path) -> None:
    found, launcher = checks.check_manifest(tmp_path / "nope.json", CMD)
    assert [c.extension_error for c in _failed(found)] == [NOT_FOUND]
    assert launcher is None
    assert CMD in found[0].fix


def test_broken_json(tmp_path: Path) -> None:
    path = tmp_path / f"{paths.HOST_NAME}.json"
    path.write_text('{"name": ')
    found, _ = checks.check_manifest(path, CMD)
    assert "not valid JSON" in _failed(found)[0].detail


def test_wrong_name(tmp_path: Path) -> None:
    found, _ = checks.check_manifest(_manifest(tmp_path, name="com.other"), CMD)
    assert [c.extension_error for c in _failed(found)] == [NOT_FOUND]


def test_relative_path(tmp_path: Path) -> None:
    found, launcher = checks.check_manifest(_manifest(tmp_path, path="bin/launcher"), CMD)
    (bad,) = _failed(found)
    assert "relative" in bad.detail and bad.extension_error == NOT_FOUND
    assert launcher is None


def test_missing_launcher(tmp_path: Path) -> None:
    found, _ = checks.check_manifest(_manifest(tmp_path, path=str(tmp_path / "gone")), CMD)
    assert "does not exist" in _failed(found)[0].detail


def test_non_executable_launcher(tmp_path: Path) -> None:
    path = _manifest(tmp_path)
    (tmp_path / "launcher").chmod(0o644)
    (bad,) = _failed(checks.check_manifest(path, CMD)[0])
    assert bad.extension_error == COMMUNICATION
    assert bad.fix == f"run: chmod 755 '{tmp_path / 'launcher'}'"


def test_wrong_origin(tmp_path: Path) -> None:
    found, _ = checks.check_manifest(_manifest(tmp_path, allowed_origins=["chrome-extension://abc/"]), CMD)
    (bad,) = _failed(found)
    assert bad.name == "allowed_origins" and bad.extension_error == FORBIDDEN


def test_launcher_written_by_installer_runs(tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, tmp_path / "data")
    hosts.install_hosts(machine, ["chromium"])
    launcher = tmp_path / "data" / "bin" / "tabpilot-native-host"
    found = checks.check_launcher(launcher, CMD)
    assert [c.status for c in found] == ["ok", "ok"], found


def test_launcher_with_vanished_python(tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, tmp_path / "data")
    hosts.install_hosts(machine, ["chromium"], python=str(tmp_path / "old-venv" / "bin" / "python"))
    (bad,) = checks.check_launcher(tmp_path / "data" / "bin" / "tabpilot-native-host", CMD)
    assert bad.failed and "no longer exists" in bad.detail


def test_launcher_that_crashes(tmp_path: Path) -> None:
    launcher = tmp_path / "launcher"
    launcher.write_text("#!/bin/sh\necho 'ModuleNotFoundError: tabpilot' >&2\nexit 1\n")
    launcher.chmod(0o755)
    found = checks.check_launcher(launcher, CMD)
    assert found[-1].failed and "ModuleNotFoundError" in found[-1].detail


def test_runtime_dir_states(tmp_path: Path) -> None:
    d = tmp_path / "run"
    missing = checks.check_runtime_dir(d)  # no browser has started the host yet: not a fault of its own
    assert not missing.failed and missing.status == checks.WARN
    d.mkdir(mode=0o755)
    d.chmod(0o755)
    insecure = checks.check_runtime_dir(d)
    assert insecure.failed and insecure.fix == f"run: chmod 700 '{d}'"
    d.chmod(0o700)
    assert not checks.check_runtime_dir(d).failed


def _info(**kw: object) -> m.BrowserInfo:
    return msgspec.convert({"instance_id": "0123456789abcdef", **kw}, m.BrowserInfo)


async def _fake_host(path: Path, info: m.BrowserInfo) -> asyncio.Server:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (frame := await read_frame(reader, 1 << 20)) is not None:
            cmd = m.to_host_decoder.decode(frame)
            value = msgspec.Raw(m.encoder.encode(info))
            writer.write(encode_frame(m.encoder.encode(m.Result(id=cmd.id, value=value))))
        writer.close()

    return await asyncio.start_unix_server(serve, path=str(path))


def test_connected_browsers_and_stale_socket(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs[paths.ENV_RUNTIME])
    run.mkdir(mode=0o700)
    stale = run / "ffffffffffffffff.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(stale))  # bound, never listening: what a crashed host leaves behind

    async def scenario() -> list[checks.Check]:
        info = _info(
            label="TabPilot profile work", browser_name="Chromium", browser_version="156", pilot=True
        )
        server = await _fake_host(run / "0123456789abcdef.sock", info)
        async with server:
            return check_browsers(await probe_all(run))

    found = asyncio.run(scenario())
    by_name = {c.name: c for c in found}
    assert by_name["connected browsers"].status == "ok"
    assert "TabPilot profile work" in by_name["connected browsers"].detail
    assert "pilot ON" in by_name["browser TabPilot profile work"].detail
    assert by_name[f"socket {stale.name}"].status == "warn"
    assert "AI Web Pilot" not in by_name


def test_no_browser_and_pilot_off() -> None:
    assert check_browsers([])[-1].failed
    from tabpilot_installer.live import Probe

    found = check_browsers([Probe(Path("x.sock"), _info(pilot=False, protocol_ok=False))])
    assert [c.status for c in found] == ["ok", "FAIL", "warn"]


def test_cli_json_exit_code(tp_dirs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    udd = tmp_path / "profile"
    result = CliRunner().invoke(cli.main, ["doctor", "--user-data-dir", str(udd), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["ok"] is False
    first = report["checks"][0]
    assert first["status"] == "FAIL" and first["extension_error"] == NOT_FOUND
    assert first["fix"] == f"run: tabpilot install --user-data-dir {udd}"


def test_cli_all_good_with_a_connected_browser(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, Path(tp_dirs[paths.ENV_DATA]))
    udd = tmp_path / "profile"
    hosts.install_hosts(machine, ["chromium"], user_data_dir=udd)
    run = Path(tp_dirs[paths.ENV_RUNTIME])
    run.mkdir(mode=0o700)

    async def scenario() -> list[checks.Check]:
        server = await _fake_host(run / "0123456789abcdef.sock", _info(label="L", pilot=True))
        async with server:
            found = doctor.targets(machine, None, udd)
            return await asyncio.to_thread(doctor.run_checks, machine, found, run)

    found = asyncio.run(scenario())
    assert [c for c in found if c.status != "ok"] == []
    assert "All checks passed." in doctor.render(found)
    assert os.environ[paths.ENV_RUNTIME] == str(run)


def test_targets_default_to_recorded_registrations(tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, tmp_path / "data")
    assert [t.label for t in doctor.targets(machine, "edge", None)] == ["edge"]
    (tmp_path / "home" / ".config" / "google-chrome").mkdir(parents=True)  # Chrome has run here
    hosts.install_hosts(machine, ["chrome"])
    hosts.install_hosts(machine, ["chromium"], user_data_dir=tmp_path / "prof")
    found = doctor.targets(machine, None, None)
    assert [t.manifest for t in found][:2] == [
        tmp_path / "home" / ".config" / "google-chrome" / "NativeMessagingHosts" / "com.tabpilot.host.json",
        tmp_path / "prof" / "NativeMessagingHosts" / "com.tabpilot.host.json",
    ]
    assert found[1].install_cmd == f"tabpilot install --user-data-dir {tmp_path / 'prof'}"
    assert all(t.required and not t.skipped for t in found[:2])


def test_doctor_checks_everyday_browsers_and_skips_ones_not_installed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    machine = Machine("linux", home, {}, tmp_path / "data")
    (home / ".config" / "BraveSoftware" / "Brave-Browser").mkdir(parents=True)  # Brave has run here
    # Installing for Edge creates its folder; that is no sign Edge is installed.
    hosts.install_hosts(machine, ["edge"])
    with_brave = {t.label: t for t in doctor.targets(machine, None, None)}
    assert with_brave["edge"].skipped and "not installed" in with_brave["edge"].skipped
    assert with_brave["brave"].required is False  # found, never registered, while edge is
    run = tmp_path / "run"
    result = doctor.run_checks(machine, list(with_brave.values()), run)
    by_name = {c.name: c for c in result}
    assert by_name["registration (edge)"].status == checks.WARN
    assert by_name["registration (brave)"].status == checks.WARN
    assert "tabpilot install --browser brave" in by_name["registration (brave)"].detail
    hosts.uninstall_hosts(machine)
    assert not (home / ".config" / "microsoft-edge").exists()
    # Nothing registered at all: a browser found here without registration is a failure to fix.
    [brave] = [t for t in doctor.targets(machine, None, None) if t.label == "brave"]
    assert brave.required


def test_windows_target_reads_the_registry(tmp_path: Path) -> None:
    from tabpilot_installer.registry import MemoryRegistry

    win = Machine("win32", tmp_path / "home", {}, tmp_path / "data")
    reg = MemoryRegistry()
    (missing,) = doctor.targets(win, "chrome", None, reg)
    assert missing.manifest is None and "HKCU" in missing.missing_detail
    reg.set_default(r"Software\Google\Chrome\NativeMessagingHosts\com.tabpilot.host", r"C:\tp\m.json")
    (found,) = doctor.targets(win, "chrome", None, reg)
    assert str(found.manifest) == r"C:\tp\m.json"
