"""MCP client config: locations per OS, merge without clobbering, backups, refusal, uninstall."""

from __future__ import annotations

import json
import stat
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest
from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot_installer import mcp_clients, record
from tabpilot_installer.clients import install_clients, uninstall_clients
from tabpilot_installer.machine import Machine

LINUX = Machine("linux", PurePosixPath("/home/ann"), {})
MAC = Machine("darwin", PurePosixPath("/Users/ann"), {})
WIN = Machine("win32", PureWindowsPath(r"C:\Users\ann"), {"APPDATA": r"C:\Users\ann\AppData\Roaming"})
NOW = datetime(2026, 1, 2, 3, 4, 5)


@pytest.mark.parametrize(
    ("machine", "name", "expected"),
    [
        (LINUX, "claude-code", "/home/ann/.claude.json"),
        (MAC, "claude-code", "/Users/ann/.claude.json"),
        (WIN, "claude-code", r"C:\Users\ann\.claude.json"),
        (LINUX, "claude-desktop", "/home/ann/.config/Claude/claude_desktop_config.json"),
        (MAC, "claude-desktop", "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json"),
        (WIN, "claude-desktop", r"C:\Users\ann\AppData\Roaming\Claude\claude_desktop_config.json"),
        (LINUX, "cursor", "/home/ann/.cursor/mcp.json"),
        (MAC, "cursor", "/Users/ann/.cursor/mcp.json"),
        (WIN, "cursor", r"C:\Users\ann\.cursor\mcp.json"),
        (LINUX, "vscode", "/home/ann/.config/Code/User/mcp.json"),
        (MAC, "vscode", "/Users/ann/Library/Application Support/Code/User/mcp.json"),
        (WIN, "vscode", r"C:\Users\ann\AppData\Roaming\Code\User\mcp.json"),
    ],
)
def test_config_locations(machine: Machine, name: str, expected: str) -> None:
    assert str(mcp_clients.config_path(machine, name)) == expected


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("claude-code", "mcpServers"),
        ("claude-desktop", "mcpServers"),
        ("cursor", "mcpServers"),
        ("vscode", "servers"),
    ],
)
def test_config_keys(name: str, key: str) -> None:
    assert mcp_clients.client(name).key == key


def test_vscode_entry_is_typed_stdio() -> None:
    entry = mcp_clients.server_entry("vscode", ["/bin/tabpilot", "mcp"])
    assert entry == {"type": "stdio", "command": "/bin/tabpilot", "args": ["mcp"]}
    assert mcp_clients.server_entry("cursor", ["/bin/tabpilot", "mcp"]) == {
        "command": "/bin/tabpilot",
        "args": ["mcp"],
    }


def test_command_prefers_console_script_beside_python(tmp_path: Path) -> None:
    python = tmp_path / "python"
    assert mcp_clients.tabpilot_command(str(python), windows=False) == [
        str(python),
        "-m",
        "tabpilot.cli",
        "mcp",
    ]
    (tmp_path / "tabpilot").write_text("")
    assert mcp_clients.tabpilot_command(str(python), windows=False) == [str(tmp_path / "tabpilot"), "mcp"]


def test_add_keeps_other_servers_and_backs_up(tmp_path: Path) -> None:
    cfg = tmp_path / "mcp.json"
    original = '{"servers": {"other": {"command": "x"}}, "inputs": []}'
    cfg.write_text(original)
    cfg.chmod(0o600)
    backup = mcp_clients.add_server(cfg, "servers", {"command": "tp"}, now=NOW)
    data = json.loads(cfg.read_text())
    assert data == {"servers": {"other": {"command": "x"}, "tabpilot": {"command": "tp"}}, "inputs": []}
    assert backup is not None and backup.name == "mcp.json.20260102-030405.bak"
    assert backup.read_text() == original
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600
    second = mcp_clients.add_server(cfg, "servers", {"command": "tp2"}, now=NOW)
    assert second is not None and second != backup  # never overwrite an earlier backup


def test_add_creates_missing_file(tmp_path: Path) -> None:
    cfg = tmp_path / "a" / "b" / "mcp.json"
    assert mcp_clients.add_server(cfg, "mcpServers", {"command": "tp"}) is None
    assert json.loads(cfg.read_text()) == {"mcpServers": {"tabpilot": {"command": "tp"}}}


@pytest.mark.parametrize("text", ['{"servers": {', "// comment\n{", "[1, 2]", '{"servers": []}'])
def test_add_refuses_unusable_file_without_writing(tmp_path: Path, text: str) -> None:
    cfg = tmp_path / "mcp.json"
    cfg.write_text(text)
    with pytest.raises(mcp_clients.ConfigError, match="by hand"):
        mcp_clients.add_server(cfg, "servers", {"command": "tp"})
    assert cfg.read_text() == text
    assert list(tmp_path.iterdir()) == [cfg]


def test_add_accepts_jsonc_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    # VS Code writes mcp.json as JSONC; the rewrite is plain JSON and the backup keeps the comments.
    cfg = tmp_path / "mcp.json"
    original = '{\n  // mine\n  "servers": {"keep": {"command": "k",},},\n  /* block */ "inputs": [],\n}\n'
    cfg.write_text(original)
    backup = mcp_clients.add_server(cfg, "servers", {"command": "tp"}, now=NOW)
    assert json.loads(cfg.read_text()) == {
        "servers": {"keep": {"command": "k"}, "tabpilot": {"command": "tp"}},
        "inputs": [],
    }
    assert backup is not None and backup.read_text() == original
    removed, _ = mcp_clients.remove_server(cfg, "servers", now=NOW)
    assert removed and json.loads(cfg.read_text()) == {"servers": {"keep": {"command": "k"}}, "inputs": []}


def test_remove_only_our_entry(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text('{"mcpServers": {"tabpilot": {}, "keep": {"command": "k"}}, "x": 1}')
    removed, backup = mcp_clients.remove_server(cfg, "mcpServers", now=NOW)
    assert removed and backup is not None
    assert json.loads(cfg.read_text()) == {"mcpServers": {"keep": {"command": "k"}}, "x": 1}
    assert mcp_clients.remove_server(cfg, "mcpServers") == (False, None)


def test_install_and_uninstall_clients_with_record(tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, tmp_path / "data")
    cursor = tmp_path / "home" / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text('{"mcpServers": {"keep": {"command": "k"}}}')
    install_clients(machine, ["cursor", "claude-desktop"], python=str(tmp_path / "py"))
    desktop = tmp_path / "home" / ".config" / "Claude" / "claude_desktop_config.json"
    assert json.loads(desktop.read_text())["mcpServers"]["tabpilot"]["args"] == ["-m", "tabpilot.cli", "mcp"]
    rec = record.load(tmp_path / "data")
    assert [m.client for m in rec.mcp_clients] == ["cursor", "claude-desktop"]
    uninstall_clients(machine, ["cursor"])
    assert json.loads(cursor.read_text()) == {"mcpServers": {"keep": {"command": "k"}}}
    uninstall_clients(machine)
    assert not desktop.exists()  # TabPilot created it and nothing else was added
    assert not record.record_path(tmp_path / "data").exists()


def test_installing_a_client_again_changes_nothing(tmp_path: Path) -> None:
    machine = Machine("linux", tmp_path / "home", {}, tmp_path / "data")
    cursor = tmp_path / "home" / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text('{"mcpServers": {"keep": {"command": "k"}}}')
    install_clients(machine, ["cursor"], python=str(tmp_path / "py"))
    first = record.load(tmp_path / "data").mcp_clients
    written, backups = cursor.read_text(), sorted(cursor.parent.glob("*.bak"))
    again = install_clients(machine, ["cursor"], python=str(tmp_path / "py"))
    assert "unchanged" in again.lines[0]
    assert cursor.read_text() == written and sorted(cursor.parent.glob("*.bak")) == backups
    assert record.load(tmp_path / "data").mcp_clients == first
    # Another interpreter is a real change: written again, with a backup of what was there.
    install_clients(machine, ["cursor"], python=str(tmp_path / "other-py"))
    assert len(list(cursor.parent.glob("*.bak"))) == len(backups) + 1


def test_cli_refuses_invalid_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv(paths.ENV_DATA, str(tmp_path / "data"))
    (tmp_path / ".claude.json").write_text("{oops")
    result = CliRunner().invoke(cli.main, ["install", "--mcp-client", "claude-code"])
    assert result.exit_code == 1
    assert "not valid JSON" in result.output
    assert (tmp_path / ".claude.json").read_text() == "{oops"
