"""Where TabPilot keeps things on this machine: per-user runtime, state and data directories.

Each can be moved with an environment variable (tests use this to stay out of the real ones).
Chrome starts the native host with the browser's environment, so a browser launched with these
variables set has a host that uses them too.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import platformdirs

APP = "tabpilot"
HOST_NAME = "com.tabpilot.host"
# The id Chrome derives from the "key" pinned in extension/manifest.json.
EXTENSION_ID = "dmjbbpeandkiiabfambpndhbfhblfgjp"
EXTENSION_ORIGIN = f"chrome-extension://{EXTENSION_ID}/"

ENV_RUNTIME = "TABPILOT_RUNTIME_DIR"
ENV_STATE = "TABPILOT_STATE_DIR"
ENV_DATA = "TABPILOT_DATA_DIR"
# Where systemd-logind makes each logged-in user's runtime folder (the usual XDG_RUNTIME_DIR).
SESSION_RUNTIME_ROOT = Path("/run/user")


def _ours(folder: Path) -> bool:
    try:
        st = folder.stat()
    except OSError:
        return False
    return folder.is_dir() and st.st_uid == os.getuid()


def runtime_dir() -> Path:
    """Directory of the per-browser sockets (must be 0700 and ours)."""
    if env := os.environ.get(ENV_RUNTIME):
        return Path(env)
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        if xdg:
            return Path(xdg) / APP
        # Many MCP clients start their servers with a few variables only (HOME, PATH, USER…), while
        # Chrome gives the host the login session's: the session's folder, when this user has one, is
        # what XDG_RUNTIME_DIR names there, so both ends meet at the same sockets.
        session = SESSION_RUNTIME_ROOT / str(os.getuid())
        if _ours(session):
            return session / APP
        # No session runtime dir (cron, containers, root shells): a private dir in /tmp, per uid.
        return Path(tempfile.gettempdir()) / f"{APP}-{os.getuid()}"
    if sys.platform == "darwin":
        # Socket paths are limited to 104 bytes on macOS; TMPDIR is per-user and private.
        return Path(tempfile.gettempdir()) / APP
    return Path(platformdirs.user_runtime_dir(APP, appauthor=False))


def state_dir() -> Path:
    """Logs and other state that may be lost without harm."""
    if env := os.environ.get(ENV_STATE):
        return Path(env)
    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def data_dir() -> Path:
    """Launchers, dedicated browser profiles, stored workflows."""
    if env := os.environ.get(ENV_DATA):
        return Path(env)
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def log_dir() -> Path:
    """Rotating log files of the host and the bridge."""
    return state_dir() / "log"


def repo_root() -> Path:
    """The source checkout (for developer tools and tests only: an installed package has none)."""
    return Path(__file__).resolve().parents[2]


def extension_dir() -> Path:
    """The unpacked extension folder to load in the browser (shipped in the package)."""
    from . import assets

    return assets.extension_dir()
