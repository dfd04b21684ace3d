"""The facts about this machine that decide where things go, gathered in one value so tests can fake it."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

from tabpilot import paths


@dataclass(frozen=True)
class Machine:
    """Platform (a `sys.platform` value), home directory, environment and TabPilot's data directory."""

    platform: str
    home: PurePath
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    data_dir: PurePath | None = None

    @classmethod
    def current(cls) -> Machine:
        """This machine, as the running process sees it."""
        return cls(sys.platform, Path.home(), dict(os.environ), paths.data_dir())

    @property
    def is_windows(self) -> bool:
        """Windows keeps native host registrations in the registry, not in folders."""
        return self.platform == "win32"

    @property
    def is_mac(self) -> bool:
        """macOS keeps per-user browser data under ~/Library/Application Support."""
        return self.platform == "darwin"

    def path(self, *parts: str) -> PurePath:
        """A path in this machine's flavour (Windows paths stay Windows paths on a Linux test run)."""
        cls = PureWindowsPath if self.is_windows else PurePosixPath
        return cls(*parts)

    def config_home(self) -> PurePath:
        """Linux: $XDG_CONFIG_HOME or ~/.config (Chromium derives its user data dir from it)."""
        xdg = self.env.get("XDG_CONFIG_HOME")
        if xdg and PurePosixPath(xdg).is_absolute():
            return PurePosixPath(xdg)
        return self.home / ".config"

    def app_support(self) -> PurePath:
        """macOS: ~/Library/Application Support."""
        return self.home / "Library" / "Application Support"

    def appdata(self) -> PurePath:
        """Windows: %APPDATA% (roaming), where desktop apps such as Claude and VS Code keep config."""
        return PureWindowsPath(self.env.get("APPDATA") or self.home / "AppData" / "Roaming")

    def tabpilot_data(self) -> PurePath:
        """TabPilot's data dir on this machine (launchers, Windows manifests, install record)."""
        if self.data_dir is None:
            raise ValueError("Machine.data_dir is not set")
        return self.data_dir


def concrete(path: PurePath) -> Path:
    """A real filesystem path for writing (only meaningful on the machine the path was computed for)."""
    return Path(str(path))
