"""Installing and uninstalling the native host: files, modes, registry, record, CLI."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot_installer import hosts, launcher, manifest, record
from tabpilot_installer.machine import Machine
from tabpilot_installer.registry import MemoryRegistry


@pytest.fixture
def linux(tmp_path: Path) -> Machine:
    return Machine("linux", tmp_path / "home", {}, tmp_path / "data")


def _read(path: Path) -> dict[str, object]:
    return json.loads(path.read_text())


def test_render_uses_template_and_constants(tmp_path: Path) -> None:
    data = manifest.render(tmp_path / "bin" / "launcher")
    assert data["name"] == paths.HOST_NAME == "com.tabpilot.host"
    assert data["type"] == "stdio"
    assert data["path"] == str(tmp_path / "bin" / "launcher")
    assert data["allowed_origins"] == ["chrome-extension://dmjbbpeandkiiabfambpndhbfhblfgjp/"]


def test_render_escapes_windows_paths_as_json() -> None:
    from pathlib import PureWindowsPath

    text = manifest.dumps(manifest.render(PureWindowsPath(r'C:\Users\a "b"\bin\x.bat')))
    assert json.loads(text)["path"] == r'C:\Users\a "b"\bin\x.bat'


def test_render_refuses_relative_launcher() -> None:
    with pytest.raises(ValueError, match="absolute"):
        manifest.render(Path("bin/launcher"))


def test_posix_launcher_execs_python_on_native(linux: Machine) -> None:
    path = launcher.write_launcher(linux, "/opt/py $x/bin/python3")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert path == Path(str(linux.tabpilot_data())) / "bin" / "tabpilot-native-host"
    text = path.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert 'exec "/opt/py \\$x/bin/python3" -m tabpilot.cli native "$@"' in text


def test_posix_launcher_quoting_survives_a_real_shell(linux: Machine, tmp_path: Path) -> None:
    # A fake "python" that prints its argv proves the quoting and the "$@" pass-through.
    odd = tmp_path / 'py "$dir`'
    odd.mkdir()
    fake = odd / "python"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(0o755)
    path = launcher.write_launcher(linux, str(fake))
    out = subprocess.run(
        [str(path), "chrome-extension://x/", "--parent-window=0"], capture_output=True, text=True
    )
    assert out.stdout.splitlines() == [
        "-m",
        "tabpilot.cli",
        "native",
        "chrome-extension://x/",
        "--parent-window=0",
    ]


def test_windows_launcher_is_a_bat() -> None:
    win = Machine("win32", Path("/h"), {}, Path("/d"))
    assert launcher.launcher_path(win).name == "tabpilot-native-host.bat"
    text = launcher.launcher_text(win, r"C:\Py\python.exe")
    assert text == '@echo off\r\n"C:\\Py\\python.exe" -m tabpilot.cli native %*\r\n'


def test_install_writes_manifest_launcher_and_record(linux: Machine) -> None:
    entries, report = hosts.install_hosts(linux, ["chromium", "chrome"], python="/usr/bin/python3")
    home = Path(str(linux.home))
    for folder in ("chromium", "google-chrome"):
        m = home / ".config" / folder / "NativeMessagingHosts" / "com.tabpilot.host.json"
        data = _read(m)
        assert Path(str(data["path"])).is_absolute()
        assert os.access(str(data["path"]), os.X_OK)
    rec = record.load(Path(str(linux.tabpilot_data())))
    assert [h.browser for h in rec.hosts] == ["chromium", "chrome"]
    assert rec.launcher and rec.launcher.endswith("tabpilot-native-host")
    assert len(entries) == 2
    assert any("google-chrome" in line for line in report.lines)


def test_install_twice_keeps_one_record_entry(linux: Machine) -> None:
    hosts.install_hosts(linux, ["chromium"])
    hosts.install_hosts(linux, ["chromium"])
    assert len(record.load(Path(str(linux.tabpilot_data()))).hosts) == 1


def test_install_into_user_data_dir(linux: Machine, tmp_path: Path) -> None:
    udd = tmp_path / "profile"
    hosts.install_hosts(linux, ["chromium", "chrome"], user_data_dir=udd)
    assert _read(udd / "NativeMessagingHosts" / "com.tabpilot.host.json")["name"] == "com.tabpilot.host"
    assert not (Path(str(linux.home)) / ".config").exists()


def test_uninstall_removes_exactly_what_was_recorded(linux: Machine, tmp_path: Path) -> None:
    home = Path(str(linux.home))
    nmh = home / ".config" / "chromium" / "NativeMessagingHosts"
    nmh.mkdir(parents=True)
    other = nmh / "com.other.host.json"
    other.write_text('{"name": "com.other.host"}')
    hosts.install_hosts(linux, ["chromium", "edge"])
    hosts.uninstall_hosts(linux, ["edge"])
    assert (nmh / "com.tabpilot.host.json").exists()
    assert not (
        home / ".config" / "microsoft-edge" / "NativeMessagingHosts" / "com.tabpilot.host.json"
    ).exists()
    launcher_file = Path(str(launcher.launcher_path(linux)))
    assert launcher_file.exists()  # still used by chromium
    hosts.uninstall_hosts(linux)
    assert not (nmh / "com.tabpilot.host.json").exists()
    assert not launcher_file.exists()
    assert other.exists()
    assert not record.record_path(Path(str(linux.tabpilot_data()))).exists()


def test_uninstall_leaves_a_manifest_someone_else_replaced(linux: Machine) -> None:
    (entry,), _ = hosts.install_hosts(linux, ["chromium"])
    Path(entry.manifest).write_text('{"name": "com.someone.else"}')
    report = hosts.uninstall_hosts(linux)
    assert Path(entry.manifest).exists()
    assert any("not ours" in line for line in report.lines)


def test_windows_install_sets_registry_and_uninstall_deletes_it(tmp_path: Path) -> None:
    win = Machine("win32", tmp_path / "home", {}, tmp_path / "data")
    reg = MemoryRegistry()
    hosts.install_hosts(win, ["chrome", "edge"], python=r"C:\Py\python.exe", registry=reg)
    manifest_file = tmp_path / "data" / "NativeMessagingHosts" / "com.tabpilot.host.json"
    key_chrome = r"Software\Google\Chrome\NativeMessagingHosts\com.tabpilot.host"
    key_edge = r"Software\Microsoft\Edge\NativeMessagingHosts\com.tabpilot.host"
    assert reg.get_default(key_chrome) == str(manifest_file)
    assert reg.get_default(key_edge) == str(manifest_file)
    assert _read(manifest_file)["path"] == str(tmp_path / "data" / "bin" / "tabpilot-native-host.bat")
    hosts.uninstall_hosts(win, ["chrome"], registry=reg)
    assert reg.get_default(key_chrome) is None
    assert manifest_file.exists()  # edge still points at it
    reg.set_default(key_edge, r"C:\elsewhere.json")
    hosts.uninstall_hosts(win, registry=reg)
    assert reg.get_default(key_edge) == r"C:\elsewhere.json"
    assert not manifest_file.exists()


def test_cli_install_and_uninstall(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.setenv(paths.ENV_DATA, str(tmp_path / "data"))
    runner = CliRunner()
    result = runner.invoke(cli.main, ["install", "--browser", "brave"])
    assert result.exit_code == 0, result.output
    target = tmp_path / "home" / ".config" / "BraveSoftware" / "Brave-Browser" / "NativeMessagingHosts"
    assert str(target / "com.tabpilot.host.json") in result.output
    assert str(paths.extension_dir()) in result.output
    assert "brave://extensions" in result.output
    result = runner.invoke(cli.main, ["uninstall"])
    assert result.exit_code == 0, result.output
    assert not (target / "com.tabpilot.host.json").exists()


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if not p.is_dir()) if root.exists() else []


def test_a_failed_install_leaves_nothing_behind(linux: Machine) -> None:
    home = Path(str(linux.home))
    home.mkdir()
    # Edge's folder is in the way (a file where the folder goes): its manifest cannot be written.
    (home / ".config").mkdir()
    (home / ".config" / "microsoft-edge").write_text("not a folder")
    with pytest.raises(OSError):
        hosts.install_hosts(linux, ["chromium", "edge"])
    assert _files(home) == [home / ".config" / "microsoft-edge"]
    assert not (home / ".config" / "chromium").exists()
    assert not Path(str(linux.tabpilot_data())).exists()


def test_a_failed_reinstall_restores_the_earlier_files(linux: Machine) -> None:
    hosts.install_hosts(linux, ["chromium"], python="/usr/bin/python3")
    data = Path(str(linux.tabpilot_data()))
    before = {p: p.read_bytes() for p in [*_files(data), *_files(Path(str(linux.home)))]}
    blocker = Path(str(linux.home)) / ".config" / "microsoft-edge"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        hosts.install_hosts(linux, ["chromium", "edge"], python="/opt/other/python3")
    blocker.unlink()
    after = {p: p.read_bytes() for p in [*_files(data), *_files(Path(str(linux.home)))]}
    assert after == before


def test_uninstall_removes_the_folders_install_created(linux: Machine, tmp_path: Path) -> None:
    home = Path(str(linux.home))
    (home / ".config" / "chromium").mkdir(parents=True)  # the browser's own: it stays
    hosts.install_hosts(linux, ["chromium", "chrome", "edge", "brave"])
    assert (home / ".config" / "BraveSoftware" / "Brave-Browser" / "NativeMessagingHosts").is_dir()
    hosts.uninstall_hosts(linux)
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == [Path(".config"), Path(".config/chromium")]
    assert not Path(str(linux.tabpilot_data())).exists()


def test_cli_uninstall_purge_leaves_no_tabpilot_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for env, name in ((paths.ENV_DATA, "data"), (paths.ENV_STATE, "state"), (paths.ENV_RUNTIME, "run")):
        monkeypatch.setenv(env, str(tmp_path / name))
    (tmp_path / "state" / "log").mkdir(parents=True)
    (tmp_path / "state" / "log" / "host.log").write_text("x")
    runner = CliRunner()
    assert runner.invoke(cli.main, ["install", "--browser", "chromium"]).exit_code == 0
    (tmp_path / "data" / "workflows").mkdir()
    (tmp_path / "data" / "workflows" / "wf-a-20261123.json").write_text("{}")
    partial = runner.invoke(cli.main, ["uninstall", "--purge", "--browser", "chromium"])
    assert partial.exit_code == 2 and (tmp_path / "data" / "workflows").exists()
    result = runner.invoke(cli.main, ["uninstall", "--purge"])
    assert result.exit_code == 0, result.output
    assert _files(tmp_path) == []
