"""The browser process of a profile: its pid file, whether it still runs, and stopping it."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PID_FILE = "browser.pid"
_POLL_S = 0.05


def pid_file(folder: Path) -> Path:
    """Where the launcher keeps the pid of the profile's browser."""
    return folder / PID_FILE


def write_pid(folder: Path, pid: int) -> Path:
    """Record the browser's pid in the profile folder."""
    path = pid_file(folder)
    path.write_text(f"{pid}\n", encoding="ascii")
    return path


def read_pid(folder: Path) -> int | None:
    """The recorded pid, or None."""
    try:
        return int(pid_file(folder).read_text(encoding="ascii").strip())
    except (FileNotFoundError, ValueError):
        return None


def _reap(pid: int) -> bool:
    """Collect our own exited child so it stops counting as alive; True if it was reaped."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    if _reap(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if sys.platform.startswith("linux") and stat.exists():
        with contextlib.suppress(OSError, IndexError):
            # The state letter follows the parenthesised command name.
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def serves(pid: int, user_data_dir: Path) -> bool:
    """Whether `pid` is a browser running with that user data dir (guards against pid reuse)."""
    if not alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():
        return True  # no /proc (macOS): trust the pid file
    try:
        args = cmdline.read_bytes().split(b"\0")
    except OSError:
        return False
    return f"--user-data-dir={user_data_dir}".encode() in args


def running_pid(folder: Path) -> int | None:
    """The pid of the profile's running browser, or None (a stale pid file is removed)."""
    pid = read_pid(folder)
    if pid is None:
        return None
    if serves(pid, folder):
        return pid
    pid_file(folder).unlink(missing_ok=True)
    return None


def singleton_pid(folder: Path) -> int | None:
    """The pid in the browser's own SingletonLock (a browser not started by us), if it runs."""
    lock = folder / "SingletonLock"
    try:
        target = os.readlink(lock)
    except OSError:
        return None
    try:
        pid = int(target.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return None
    return pid if alive(pid) else None


@dataclass(frozen=True)
class Stopped:
    """How a stop went: the pid, and the signal that ended it (None if it was not running)."""

    pid: int | None
    signal: str | None

    @property
    def stopped(self) -> bool:
        """A running browser was ended."""
        return self.signal is not None


def wait_gone(pid: int, timeout_s: float) -> bool:
    """Wait until the process is gone (bounded); True if it is."""
    deadline = time.monotonic() + timeout_s
    while alive(pid):
        if time.monotonic() >= deadline:
            return False
        # Not our child in general (a detached browser), so there is no exit event to await.
        time.sleep(_POLL_S)
    return True


def _group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process of group `pgid` is left."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    if not sys.platform.startswith("linux"):
        return True
    # A zombie still counts for killpg, and one whose reaper is slow must not hold a stop up.
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                state, _ppid, pgrp = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
                if int(pgrp) == pgid and state != "Z":
                    return True
    return False


def _group_gone(pgid: int, timeout_s: float) -> bool:
    """Wait until no live process of group `pgid` is left (bounded); True if none is."""
    deadline = time.monotonic() + timeout_s
    while _group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


def _own_group(pid: int) -> int | None:
    """The process group `pid` leads (the launcher starts the browser in its own session), or None."""
    try:
        return pid if os.getpgid(pid) == pid else None
    except (ProcessLookupError, PermissionError):
        return None


def terminate(pid: int, timeout_s: float = 10.0) -> Stopped:
    """SIGINT the browser; after `timeout_s` SIGKILL its whole process group (renderers, host).

    Returns once the browser's helpers are gone too: they outlive the main process by a moment, and
    "stopped" must mean the profile is free to start again."""
    if not alive(pid):
        return Stopped(pid, None)
    group = _own_group(pid)
    result = _end(pid, timeout_s)
    if group is not None and not _group_gone(group, timeout_s / 2):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        _group_gone(group, 5.0)
    return result


def _end(pid: int, timeout_s: float) -> Stopped:
    # SIGINT, not SIGTERM: Chromium takes SIGTERM as the session ending and exits without writing its
    # cookie store, which it commits only every 30 s (measured: a login 5 s old was gone after a
    # SIGTERM stop, kept after SIGINT or SIGHUP). SIGINT shuts down as closing the last window does.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    if wait_gone(pid, timeout_s):
        return Stopped(pid, "SIGINT")
    # The launcher started the browser in its own session, so its pid is also its group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    wait_gone(pid, 5.0)
    return Stopped(pid, "SIGKILL")
