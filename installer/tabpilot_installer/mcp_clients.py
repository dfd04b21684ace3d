"""Add or remove the `tabpilot` server in an MCP client's JSON config, never clobbering other servers."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any, cast

import json5

from .machine import Machine
from .manifest import atomic_write

SERVER_NAME = "tabpilot"


@dataclass(frozen=True)
class Client:
    """An MCP client: its config key and whether entries carry `"type": "stdio"`."""

    name: str
    title: str
    key: str
    typed: bool


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client("claude-code", "Claude Code", "mcpServers", True),
        Client("claude-desktop", "Claude Desktop", "mcpServers", False),
        Client("cursor", "Cursor", "mcpServers", False),
        Client("vscode", "VS Code", "servers", True),
    )
}


class ConfigError(Exception):
    """The client's config file cannot be changed safely; nothing was written."""


def client(name: str) -> Client:
    """The client called `name`."""
    try:
        return CLIENTS[name]
    except KeyError:
        raise ValueError(f"unknown MCP client {name!r}; choose one of {', '.join(CLIENTS)}") from None


def config_path(machine: Machine, name: str) -> PurePath:
    """The user-level config file of that client on that machine."""
    client(name)
    if name == "claude-code":
        # User scope lives at the top level of ~/.claude.json (CLAUDE_CONFIG_DIR moves it).
        base = machine.env.get("CLAUDE_CONFIG_DIR")
        return machine.path(base) / ".claude.json" if base else machine.home / ".claude.json"
    if name == "cursor":
        return machine.home / ".cursor" / "mcp.json"
    if name == "claude-desktop":
        folder, file = ("Claude",), "claude_desktop_config.json"
    else:
        folder, file = ("Code", "User"), "mcp.json"
    if machine.is_windows:
        return machine.appdata().joinpath(*folder, file)
    if machine.is_mac:
        return machine.app_support().joinpath(*folder, file)
    return machine.config_home().joinpath(*folder, file)


def tabpilot_command(python: str = sys.executable, windows: bool = sys.platform == "win32") -> list[str]:
    """Command line that starts `tabpilot mcp`: the console script beside Python, else `python -m`."""
    script = Path(python).parent / ("tabpilot.exe" if windows else "tabpilot")
    if script.is_file():
        return [str(script), "mcp"]
    return [python, "-m", "tabpilot.cli", "mcp"]


def server_entry(name: str, command: list[str]) -> dict[str, Any]:
    """The server entry for that client."""
    entry: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if client(name).typed:
        entry = {"type": "stdio", **entry}
    return entry


def _load(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        # VS Code (and others) write JSONC: comments and trailing commas. Rewriting drops the
        # comments, which the backup taken before every write keeps.
        try:
            data = json5.loads(text)
        except ValueError:
            raise ConfigError(f"{path} is not valid JSON ({exc}); fix it or add the entry by hand") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it or add the entry by hand")
    return cast(dict[str, Any], data)


def _servers(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f'"{key}" in {path} is not an object; fix it or add the entry by hand')
    return cast(dict[str, Any], servers)


def _backup(path: Path, now: datetime) -> Path:
    backup = path.with_name(f"{path.name}.{now:%Y%m%d-%H%M%S}.bak")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.{now:%Y%m%d-%H%M%S}-{n}.bak")
    shutil.copy2(path, backup)
    return backup


def _write(path: Path, data: dict[str, Any]) -> None:
    # Keep the file's mode: ~/.claude.json holds account data and is often 0600.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    atomic_write(path, json.dumps(data, indent=2) + "\n", mode=mode)


def has_server(path: Path, key: str, entry: dict[str, Any]) -> bool:
    """Whether the config already holds exactly this entry (so adding it again would change nothing)."""
    data = _load(path)
    servers: Any = None if data is None else data.get(key)
    return isinstance(servers, dict) and cast(dict[str, Any], servers).get(SERVER_NAME) == entry


def add_server(path: Path, key: str, entry: dict[str, Any], now: datetime | None = None) -> Path | None:
    """Merge our entry under `key`; back up an existing file first. Returns the backup path."""
    data = _load(path)
    backup = None
    if data is None:
        data = {}
    _servers(data, key, path)[SERVER_NAME] = entry
    if path.exists():
        backup = _backup(path, now or datetime.now())
    _write(path, data)
    return backup


def remove_server(
    path: Path, key: str, *, created: bool = False, now: datetime | None = None
) -> tuple[bool, Path | None]:
    """Remove our entry if present (backing up first). Returns (removed, backup path).

    `created`: we created the file; if nothing else was added to it since, delete it instead.
    """
    data = _load(path)
    if data is None:
        return False, None
    servers = data.get(key)
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return False, None
    del cast(dict[str, Any], servers)[SERVER_NAME]
    if created and data == {key: {}}:
        path.unlink()
        return True, None
    backup = _backup(path, now or datetime.now())
    _write(path, data)
    return True, backup
