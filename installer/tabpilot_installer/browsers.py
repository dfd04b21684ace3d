"""Where each Chromium-family browser looks for native messaging hosts, per OS (pure functions)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from tabpilot import paths

from .machine import Machine, concrete


@dataclass(frozen=True)
class Browser:
    """One browser's per-user locations. Folders are relative to the OS's config root."""

    name: str
    title: str
    linux_dir: str
    mac_dir: str
    win_key: str
    extensions_page: str
    # Commands that start it, to guess whether it is installed.
    linux_commands: tuple[str, ...]
    mac_app: str


BROWSERS: dict[str, Browser] = {
    b.name: b
    for b in (
        Browser(
            "chrome",
            "Google Chrome",
            "google-chrome",
            "Google/Chrome",
            r"Google\Chrome",
            "chrome://extensions",
            ("google-chrome", "google-chrome-stable"),
            "Google Chrome.app",
        ),
        Browser(
            "chromium",
            "Chromium",
            "chromium",
            "Chromium",
            r"Chromium",
            "chrome://extensions",
            ("chromium", "chromium-browser"),
            "Chromium.app",
        ),
        Browser(
            "edge",
            "Microsoft Edge",
            "microsoft-edge",
            "Microsoft Edge",
            r"Microsoft\Edge",
            "edge://extensions",
            ("microsoft-edge", "microsoft-edge-stable"),
            "Microsoft Edge.app",
        ),
        Browser(
            "brave",
            "Brave",
            "BraveSoftware/Brave-Browser",
            "BraveSoftware/Brave-Browser",
            r"BraveSoftware\Brave-Browser",
            "brave://extensions",
            ("brave-browser", "brave"),
            "Brave Browser.app",
        ),
    )
}

MANIFEST_FILE = f"{paths.HOST_NAME}.json"
NMH_DIR = "NativeMessagingHosts"


def browser(name: str) -> Browser:
    """The browser called `name` (chrome, chromium, edge, brave)."""
    try:
        return BROWSERS[name]
    except KeyError:
        raise ValueError(f"unknown browser {name!r}; choose one of {', '.join(BROWSERS)}") from None


def user_data_root(machine: Machine, name: str) -> PurePath:
    """The browser's default user data directory for this user."""
    b = browser(name)
    if machine.is_windows:
        local = machine.env.get("LOCALAPPDATA") or str(machine.home / "AppData" / "Local")
        return machine.path(local, *b.win_key.split("\\"), "User Data")
    if machine.is_mac:
        return machine.app_support().joinpath(*b.mac_dir.split("/"))
    return machine.config_home().joinpath(*b.linux_dir.split("/"))


def manifest_dir(machine: Machine, name: str, user_data_dir: PurePath | None = None) -> PurePath:
    """The folder the browser reads host manifests from.

    On Windows the browser reads the registry instead, whatever --user-data-dir says, so the manifest
    lives in TabPilot's data dir and `registry_key` points at it.
    """
    if machine.is_windows:
        return machine.tabpilot_data() / NMH_DIR
    if user_data_dir is not None:
        # Chromium reads <user-data-dir>/NativeMessagingHosts and then ignores the default folder.
        return machine.path(str(user_data_dir)) / NMH_DIR
    return user_data_root(machine, name) / NMH_DIR


def manifest_path(machine: Machine, name: str, user_data_dir: PurePath | None = None) -> PurePath:
    """Full path of our host manifest for that browser (and user data dir)."""
    return manifest_dir(machine, name, user_data_dir) / MANIFEST_FILE


def registry_key(name: str) -> str:
    """Windows: the HKEY_CURRENT_USER subkey whose default value is the manifest path."""
    return rf"Software\{browser(name).win_key}\{NMH_DIR}\{paths.HOST_NAME}"


def detect_installed(
    machine: Machine,
    *,
    exists: Callable[[PurePath], bool] = lambda p: concrete(p).exists(),
    which: Callable[[str], str | None] = shutil.which,
) -> list[str]:
    """Browsers that look installed: a user data dir exists, or (Linux/macOS) the program is there."""

    def installed(b: Browser) -> bool:
        if exists(user_data_root(machine, b.name)):
            return True
        if machine.is_mac:
            return exists(machine.path("/Applications", b.mac_app))
        if machine.is_windows:
            return False
        return any(which(c) is not None for c in b.linux_commands)

    return [b.name for b in BROWSERS.values() if installed(b)]


def choose(requested: str | None, installed: Callable[[], list[str]]) -> list[str]:
    """The browsers to act on: one name, "all", or (None) the installed ones, else chromium."""
    if requested == "all":
        return list(BROWSERS)
    if requested:
        browser(requested)
        return [requested]
    return installed() or ["chromium"]
