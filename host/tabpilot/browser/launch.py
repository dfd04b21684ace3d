"""Start and stop a dedicated browser profile with the TabPilot extension preloaded.

`launch_profile` blocks (it waits for the extension to connect); async callers run it with
`asyncio.to_thread`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import paths
from ..link import localsock, refusal
from ..wire.errors import ErrorCode, TabPilotError
from . import argv, process, profile, registry
from .urlcheck import ensure_url

LOG_FILE = "browser.log"
CONNECT_TIMEOUT_S = 20.0
_POLL_S = 0.05


@dataclass
class LaunchedBrowser:
    """A running dedicated profile."""

    pid: int
    profile: str
    user_data_dir: Path
    instance_id: str
    socket: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None
    notes: list[str] = field(default_factory=list[str])
    pilot: bool = False

    def to_dict(self) -> dict[str, Any]:
        """What `tabpilot browser launch --detach` prints."""
        return {
            "pid": self.pid,
            "profile": self.profile,
            "user_data_dir": str(self.user_data_dir),
            "instance_id": self.instance_id,
            "socket": str(self.socket),
            "pilot": self.pilot,
        }

    def wait(self) -> int:
        """Block until the browser exits; return its exit code."""
        if self.process is not None:
            code = self.process.wait()
        else:
            process.wait_gone(self.pid, float("inf"))
            code = 0
        process.pid_file(self.user_data_dir).unlink(missing_ok=True)
        return code

    def stop(self, timeout_s: float = 10.0) -> process.Stopped:
        """Terminate the browser (SIGINT, then SIGKILL after `timeout_s`)."""
        result = process.terminate(self.pid, timeout_s)
        if self.process is not None:
            self.process.wait()
        process.pid_file(self.user_data_dir).unlink(missing_ok=True)
        return result


# Chromium's complaints about a missing session bus: in every log of a machine without one, never the cause.
_NOISE = ("dbus/", "D-Bus", "Failed to connect to the bus")


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line for line in text.strip().splitlines() if not any(n in line for n in _NOISE)]
    return "\n".join(kept[-lines:])


def _failed(message: str, log: Path) -> TabPilotError:
    tail = _tail(log)
    detail = f"{message}\nbrowser log {log}" + (f", last lines:\n{tail}" if tail else " is empty")
    return TabPilotError(ErrorCode.LAUNCH_FAILED, detail, data={"log": str(log), "stderr_tail": tail})


def _refuse_if_running(name: str, folder: Path, sock: Path) -> None:
    pid = process.running_pid(folder) or process.singleton_pid(folder)
    if pid is not None:
        raise TabPilotError(
            ErrorCode.LAUNCH_FAILED,
            f"profile {name!r} is already running (pid {pid}, {folder}); "
            f"stop it with: tabpilot browser stop --profile {name}",
            data={"pid": pid, "running": True},
        )
    if sock.exists() and localsock.is_live(sock):
        raise TabPilotError(
            ErrorCode.LAUNCH_FAILED,
            f"a browser with this profile's instance id is connected at {sock}; stop it first",
            data={"running": True},
        )


def _default_roots() -> set[Path]:
    # Imported here: the installer package is only needed for this guard.
    from tabpilot_installer import browsers
    from tabpilot_installer.machine import Machine

    machine = Machine.current()
    return {Path(str(browsers.user_data_root(machine, n))) for n in browsers.BROWSERS}


def wait_connected(
    proc: subprocess.Popen[bytes], sock: Path, log: Path, timeout_s: float, instance: str = ""
) -> None:
    """Wait until the extension's host listens on `sock`; fail fast if the browser exits first or
    the host refuses to listen (it writes why: link/refusal.py)."""
    started = time.time()
    deadline = time.monotonic() + timeout_s
    while not (sock.exists() and localsock.is_live(sock)):
        code = proc.poll()
        if code is not None:
            raise _failed(f"the browser exited with code {code} before the extension connected", log)
        refused = refusal.read(instance, since=started) if instance else None
        if refused is not None:
            raise refused
        if time.monotonic() >= deadline:
            folder = shlex.quote(str(log.parent))
            raise _failed(
                f"the extension did not connect within {timeout_s:.0f} s: no TabPilot host answered for "
                f"this browser (extension not loaded, or its host not starting). Fix: run "
                f"`tabpilot doctor --user-data-dir {folder}`; host log: {paths.log_dir() / 'host.log'}",
                log,
            )
        # The socket appears in another process tree with no event to await: poll, bounded.
        time.sleep(_POLL_S)


def launch_profile(
    name: str = profile.DEFAULT_PROFILE,
    *,
    headless: bool = False,
    pilot: bool | None = None,
    sites: list[str] | None = None,
    user_data_dir: Path | None = None,
    url: str | None = None,
    browser_binary: str | None = None,
    timeout_s: float = CONNECT_TIMEOUT_S,
) -> LaunchedBrowser:
    """Start the profile's browser with the extension and return once the extension has connected.

    `pilot=True` writes a launch config that switches AI Web Pilot on in this profile, for `sites`
    only when given (host patterns; None: every site): only the person (or program) calling this
    can create it. `pilot=False` switches it off. `pilot=None` keeps the profile's last choice (off
    for a new profile), and with no `sites` its last config as it was, so the extension changes
    neither the pilot nor its sites. Without `user_data_dir`, the profile runs in the folder it was
    last launched with (the registry remembers it), else in its default one. The browser
    runs in its own session, so it outlives the caller unless stopped. With the pilot on, `url` is
    loaded through the extension and checked (retried: the first tab of a new browser sometimes
    never loads).
    """
    from tabpilot_installer.hosts import install_hosts
    from tabpilot_installer.machine import Machine

    profile.check_name(name)
    folder = profile.profile_dir(name, user_data_dir) if user_data_dir else registry.locate(name)
    if folder in _default_roots():
        raise TabPilotError(
            ErrorCode.LAUNCH_FAILED,
            f"{folder} is a browser's everyday profile; a dedicated profile needs its own folder",
        )
    if (
        sys.platform.startswith("linux")
        and not headless
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        raise TabPilotError(ErrorCode.LAUNCH_FAILED, "no display: pass --headless, or run under Xvfb")
    binary = argv.find_binary(browser_binary)
    folder.mkdir(parents=True, exist_ok=True)
    instance = profile.instance_id(folder)
    sock = localsock.socket_path(paths.runtime_dir(), instance)
    _refuse_if_running(name, folder, sock)
    sock.unlink(missing_ok=True)  # a dead host's leftover would look like a connection

    profile.write_prefs(folder)
    install_hosts(Machine.current(), ["chromium"], user_data_dir=folder)
    previous = profile.previous_config(folder)
    if pilot is None and sites is None and previous is not None:
        config = previous  # its nonce already applied: the extension keeps what the popup has since set
    else:
        kept = previous is not None and previous.get("pilot") is True
        config = profile.launch_config(name, instance, kept if pilot is None else pilot, sites)
    extension = profile.copy_extension(folder, config)
    piloted = config.get("pilot") is True
    log = folder / LOG_FILE
    # With the pilot on the extension loads the URL and reports when it has; else the command line does.
    first_url = None if piloted else url
    cmd = argv.build_argv(binary.path, folder, extension, headless=headless, url=first_url)
    with open(log, "wb") as log_out:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log_out,
            stderr=subprocess.STDOUT,
            # Its own session: Ctrl-C in the launching terminal does not reach it, and stop can
            # kill the whole group (renderers and the native host) by the browser's pid.
            start_new_session=True,
        )
    process.write_pid(folder, proc.pid)
    registry.remember(name, folder)
    launched = LaunchedBrowser(proc.pid, name, folder, instance, sock, log, proc, pilot=piloted)
    if binary.note:
        launched.notes.append(binary.note.format(extension=extension))
    try:
        wait_connected(proc, sock, log, timeout_s, instance)
        if url:
            launched.notes += ensure_url(sock, url, piloted)
    except BaseException:
        launched.stop(timeout_s=5.0)
        raise
    return launched


def stop_profile(
    name: str = profile.DEFAULT_PROFILE, *, user_data_dir: Path | None = None, timeout_s: float = 10.0
) -> process.Stopped:
    """Terminate the profile's browser if it runs (SIGINT, then SIGKILL after `timeout_s`); without
    `user_data_dir`, the folder the profile was last launched with."""
    folder = profile.profile_dir(name, user_data_dir) if user_data_dir else registry.locate(name)
    pid = process.running_pid(folder)
    if pid is None:
        return process.Stopped(None, None)
    result = process.terminate(pid, timeout_s)
    process.pid_file(folder).unlink(missing_ok=True)
    return result
