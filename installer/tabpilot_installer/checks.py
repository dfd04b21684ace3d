"""The links `tabpilot doctor` checks, each a function returning Check values (no printing here)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

from tabpilot import paths

# What the extension reads in chrome.runtime.lastError when a link is broken (measured, Chromium 156).
NOT_FOUND = "Specified native messaging host not found."
FORBIDDEN = "Access to the specified native messaging host is forbidden."
COMMUNICATION = "Error when communicating with the native messaging host."

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Check:
    """One checked link: status ok / warn / FAIL, what was found, and the exact fix."""

    name: str
    status: str
    detail: str
    fix: str = ""
    # The message the extension shows when this link is broken, so a user can match it.
    extension_error: str = ""

    @property
    def failed(self) -> bool:
        """A broken link (warnings do not count)."""
        return self.status == FAIL

    def to_dict(self) -> dict[str, Any]:
        """JSON shape for `doctor --json`."""
        return {k: v for k, v in asdict(self).items() if v != ""}


def ok(name: str, detail: str) -> Check:
    """A passing check."""
    return Check(name, OK, detail)


def fail(name: str, detail: str, fix: str, extension_error: str = "") -> Check:
    """A failing check with its fix."""
    return Check(name, FAIL, detail, fix, extension_error)


def check_manifest(path: Path, install_cmd: str) -> tuple[list[Check], Path | None]:
    """Manifest present, valid, our name, stdio, absolute existing executable path, our origin.

    Returns the checks and the launcher path it names (None when that could not be read).
    """
    label = f"manifest {path}"
    if not path.is_file():
        return [fail(label, "missing", f"run: {install_cmd}", NOT_FOUND)], None
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [fail(label, f"not valid JSON ({exc})", f"run: {install_cmd}", NOT_FOUND)], None
    if not isinstance(data, dict):
        return [fail(label, "not a JSON object", f"run: {install_cmd}", NOT_FOUND)], None
    manifest = cast(dict[str, Any], data)
    checks: list[Check] = []
    name = manifest.get("name")
    if name != paths.HOST_NAME or path.name != f"{paths.HOST_NAME}.json":
        checks.append(
            fail(
                label,
                f"name is {name!r} in file {path.name}; both must be {paths.HOST_NAME}",
                f"run: {install_cmd}",
                NOT_FOUND,
            )
        )
    elif manifest.get("type") != "stdio":
        checks.append(fail(label, f"type is {manifest.get('type')!r}, not 'stdio'", f"run: {install_cmd}"))
    else:
        checks.append(ok(label, f"valid, name {name}"))
    origins: Any = manifest.get("allowed_origins")
    if isinstance(origins, list) and paths.EXTENSION_ORIGIN in cast(list[Any], origins):
        checks.append(ok("allowed_origins", f"includes {paths.EXTENSION_ORIGIN}"))
    else:
        checks.append(
            fail(
                "allowed_origins",
                f"{origins!r} does not include {paths.EXTENSION_ORIGIN}",
                f"run: {install_cmd}",
                FORBIDDEN,
            )
        )
    host_path: Any = manifest.get("path")
    if not isinstance(host_path, str) or not host_path:
        checks.append(fail("host path", "missing", f"run: {install_cmd}", NOT_FOUND))
        return checks, None
    launcher = Path(host_path)
    if not launcher.is_absolute():
        # Chrome resolves nothing relative on Linux/macOS: it reports the host as not found.
        checks.append(fail("host path", f"{host_path} is relative", f"run: {install_cmd}", NOT_FOUND))
        return checks, None
    if not launcher.is_file():
        checks.append(fail("host path", f"{launcher} does not exist", f"run: {install_cmd}", NOT_FOUND))
        return checks, None
    if os.name != "nt" and not os.access(launcher, os.X_OK):
        mode = stat.S_IMODE(launcher.stat().st_mode)
        checks.append(
            fail(
                "host path",
                f"{launcher} is not executable (mode {mode:04o})",
                f"run: chmod 755 '{launcher}'",
                COMMUNICATION,
            )
        )
        return checks, None
    checks.append(ok("host path", f"{launcher} exists and is executable"))
    return checks, launcher


_EXEC_RE = re.compile(r'^exec "((?:[^"\\]|\\.)*)"', re.MULTILINE)


def launcher_python(launcher: Path) -> str | None:
    """The interpreter a launcher we wrote execs (None for a file we cannot read that way)."""
    try:
        text = launcher.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _EXEC_RE.search(text)
    if found is None:
        found = re.search(r'^"([^"]+)" -m tabpilot', text, re.MULTILINE)  # the Windows .bat
        return found.group(1) if found else None
    return re.sub(r"\\(.)", r"\1", found.group(1))


def check_launcher(launcher: Path, install_cmd: str, timeout_s: float = 30.0) -> list[Check]:
    """The launcher's Python exists, and the launcher starts `tabpilot native` (run with --help)."""
    checks: list[Check] = []
    python = launcher_python(launcher)
    if python is not None:
        if not Path(python).is_file():
            return [
                fail(
                    "launcher python",
                    f"{python} no longer exists (venv moved or deleted?)",
                    f"run again with the Python that has TabPilot: {install_cmd}",
                    COMMUNICATION,
                )
            ]
        checks.append(ok("launcher python", python))
    try:
        done = subprocess.run(
            [str(launcher), "--help"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [*checks, fail("launcher runs", str(exc), f"run: {install_cmd}", COMMUNICATION)]
    if done.returncode != 0 or "Usage" not in done.stdout + done.stderr:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return [
            *checks,
            fail(
                "launcher runs",
                f"exit {done.returncode}: {' | '.join(tail) or 'no output'}",
                f"reinstall TabPilot in that Python (pip install -e .), then run: {install_cmd}",
                COMMUNICATION,
            ),
        ]
    return [*checks, ok("launcher runs", "`tabpilot native --help` answered")]


def check_runtime_dir(directory: Path) -> Check:
    """The socket directory exists, is a directory, is ours and is 0700."""
    name = f"socket dir {directory}"
    try:
        st = directory.lstat()
    except FileNotFoundError:
        # Right after `tabpilot install` this is as it should be: the one link missing is a browser,
        # which the next check (connected browsers) reports with its fix.
        return Check(name, WARN, "not made yet: the host makes it when a browser with the extension starts")
    if not stat.S_ISDIR(st.st_mode):
        return fail(name, "not a directory", f"run: rm '{directory}'  (the host recreates it)")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return fail(name, f"owned by uid {st.st_uid}, not you", f"run: rm -rf '{directory}'  (as its owner)")
    mode = stat.S_IMODE(st.st_mode)
    if mode != 0o700:
        return fail(name, f"mode {mode:04o}, must be 0700", f"run: chmod 700 '{directory}'")
    return ok(name, "mode 0700, yours")
