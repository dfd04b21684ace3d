"""The small executable the host manifest points at: it runs `tabpilot native` with this Python."""

from __future__ import annotations

from pathlib import Path, PurePath

from .machine import Machine
from .manifest import atomic_write

LAUNCHER_NAME = "tabpilot-native-host"


def launcher_path(machine: Machine) -> PurePath:
    """Where the launcher goes: `<data dir>/bin/tabpilot-native-host` (`.bat` on Windows)."""
    name = LAUNCHER_NAME + (".bat" if machine.is_windows else "")
    return machine.tabpilot_data() / "bin" / name


def _sh_quote(text: str) -> str:
    # Inside double quotes sh still expands these four; escape them so any interpreter path works.
    for ch in ("\\", '"', "$", "`"):
        text = text.replace(ch, "\\" + ch)
    return f'"{text}"'


def launcher_text(machine: Machine, python: str) -> str:
    """The launcher script: exec the given interpreter on `tabpilot.cli native` with Chrome's args."""
    if machine.is_windows:
        # Chrome runs a .bat through cmd.exe; %* passes the origin and --parent-window arguments on.
        return f'@echo off\r\n"{python}" -m tabpilot.cli native %*\r\n'
    # exec, so Chrome's pipe and signals reach Python directly and no shell process lingers.
    return f'#!/bin/sh\nexec {_sh_quote(python)} -m tabpilot.cli native "$@"\n'


def write_launcher(machine: Machine, python: str) -> Path:
    """Write (or refresh) the launcher with mode 0755 and return its path."""
    path = Path(str(launcher_path(machine)))
    atomic_write(path, launcher_text(machine, python), mode=0o755)
    return path
