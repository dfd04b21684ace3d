"""Which browser binary to run for a dedicated profile, and its command line."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..wire.errors import ErrorCode, TabPilotError

# Chromium builds where --load-extension works.
_CHROMIUM = ("chromium", "chromium-browser")
# Branded builds: Google Chrome 137+ ignores --load-extension; the others may follow it.
_BRANDED = (
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave-browser",
)
_MAC_APPS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
)
BRANDED_NOTE = (
    "Google Chrome 137+ ignores --load-extension (other branded browsers may too): if TabPilot does not "
    "connect, use Chromium, or load {extension} once by hand at chrome://extensions in this profile"
)

# Keep Chromium off the network it has no business on (measured on Debian Chromium 156).
NO_NETWORK_FLAGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
)

# Flags for a profile an agent drives.
BASE_FLAGS = (
    # Keeps the "unsupported command-line flag" infobar away, which would change the viewport.
    "--test-type",
    *NO_NETWORK_FLAGS,
    # chrome.debugger would otherwise show an infobar and shrink the viewport by 56 px.
    "--silent-debugger-extension-api",
    # Re-enables --load-extension in the Chrome releases that allow switching it back on.
    "--disable-features=DisableLoadExtensionCommandLineSwitch",
)


@dataclass(frozen=True)
class Binary:
    """The browser to start, and a note for the user when it may not load the extension."""

    path: str
    note: str = ""


def find_binary(
    explicit: str | None = None,
    *,
    platform: str = sys.platform,
    which: Callable[[str], str | None] = shutil.which,
    exists: Callable[[str], bool] = os.path.exists,
) -> Binary:
    """The browser binary: `explicit`, else Chromium, else a branded browser (with a note)."""
    if explicit:
        found = explicit if os.sep in explicit or exists(explicit) else which(explicit)
        if not found or not exists(found):
            raise TabPilotError(ErrorCode.LAUNCH_FAILED, f"browser binary {explicit} not found")
        branded = any(b in Path(found).name.lower() for b in ("chrome", "edge", "brave")) and (
            "chromium" not in found.lower()
        )
        return Binary(found, BRANDED_NOTE if branded else "")
    if platform == "darwin":
        for app in _MAC_APPS:
            if exists(app):
                return Binary(app, "" if "Chromium" in app else BRANDED_NOTE)
    for name in _CHROMIUM:
        if found := which(name):
            return Binary(found)
    for name in _BRANDED:
        if found := which(name):
            return Binary(found, BRANDED_NOTE)
    raise TabPilotError(
        ErrorCode.LAUNCH_FAILED,
        "no Chromium found: install it (Debian/Ubuntu: apt install chromium) or pass --browser-binary PATH",
    )


def build_argv(
    binary: str,
    user_data_dir: Path,
    extension: Path,
    *,
    headless: bool = False,
    url: str | None = None,
    as_root: bool | None = None,
) -> list[str]:
    """The browser's command line for a dedicated profile with our extension copy loaded."""
    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    argv = [binary, f"--user-data-dir={user_data_dir}", f"--load-extension={extension}", *BASE_FLAGS]
    if as_root:
        # Chromium exits at once as root without it; for other users keep the sandbox.
        argv.append("--no-sandbox")
    if headless:
        argv.append("--headless=new")
    argv.append(url or "about:blank")
    return argv
