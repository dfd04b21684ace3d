"""A dedicated browser profile on disk: its folder, instance id, preferences and extension copy."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any, cast

from .. import paths
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.site_pattern import is_site_pattern

DEFAULT_PROFILE = "default"
INSTANCE_ID_FILE = "instance-id"
EXTENSION_COPY = "extension"
LAUNCH_CONFIG = "launch-config.json"
# The digest of the extension copy the profile's browser last registered (see copy_extension).
EXTENSION_DIGEST = "extension-digest"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_ID_RE = re.compile(r"^[0-9a-f]{16}$")
# What a source checkout may hold that the browser has no use for (and a stale config).
_IGNORE = shutil.ignore_patterns(".git", "node_modules", LAUNCH_CONFIG)


def check_name(name: str) -> str:
    """A profile name usable as a folder name: letters, digits, dot, dash, underscore (max 64)."""
    if not _NAME_RE.match(name):
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS,
            f"invalid profile name {name!r}: use letters, digits, '.', '-' or '_' (max 64)",
        )
    return name


def profile_dir(name: str, user_data_dir: Path | None = None) -> Path:
    """The profile's folder, which is also the browser's --user-data-dir."""
    if user_data_dir is not None:
        return user_data_dir.expanduser().resolve()
    return paths.data_dir() / "profiles" / check_name(name)


def instance_id(folder: Path) -> str:
    """The profile's instance id (16 hex), created once and kept in the profile folder."""
    path = folder / INSTANCE_ID_FILE
    try:
        found = path.read_text(encoding="ascii").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        found = ""
    if _ID_RE.match(found):
        return found
    new = secrets.token_hex(8)
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(new + "\n", encoding="ascii")
    return new


def label(name: str) -> str:
    """The human label the extension reports for a dedicated profile."""
    return f"TabPilot profile {name}"


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        current = into.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            _merge(cast(dict[str, Any], current), cast(dict[str, Any], value))
        else:
            into[key] = value


def profile_prefs() -> dict[str, Any]:
    """The preferences a dedicated profile needs before the browser starts."""
    return {
        "extensions": {
            # Without developer mode chrome.runtime.reload() silently disables an unpacked extension.
            "ui": {"developer_mode": True},
            # The per-extension "Allow User Scripts" toggle, set ahead for running scripts under a strict CSP.
            "settings": {paths.EXTENSION_ID: {"user_scripts_enabled": True}},
        },
        # After a kill the browser would show a "restore pages?" bubble that shifts the viewport.
        "profile": {"exit_type": "Normal", "exited_cleanly": True},
    }


def write_prefs(user_data_dir: Path) -> Path:
    """Merge `profile_prefs()` into `<udd>/Default/Preferences`, keeping everything else there."""
    path = user_data_dir / "Default" / "Preferences"
    prefs: dict[str, Any] = {}
    try:
        loaded: Any = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            prefs = cast(dict[str, Any], loaded)
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        # The browser would discard an unreadable file too; keep a copy for inspection.
        shutil.copy2(path, path.with_name("Preferences.unreadable"))
    _merge(prefs, profile_prefs())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".Preferences.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(prefs, f)
    os.replace(tmp, path)
    return path


def site_patterns(text: str) -> list[str]:
    """`--sites a,b` as the extension's host patterns (`jira.acme.com`, `*.acme.com`, `127.0.0.1:8000`)."""
    found: list[str] = []
    for raw in text.split(","):
        site = raw.strip().lower()
        if not site:
            continue
        if not is_site_pattern(site):
            raise TabPilotError(
                ErrorCode.INVALID_PARAMS,
                f"not a site: {raw.strip()[:200]!r} (e.g. jira.acme.com, *.acme.com, 127.0.0.1:8000)",
            )
        if site not in found:
            found.append(site)
    if not found:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, "--sites needs at least one site, e.g. jira.acme.com")
    return found


def previous_config(folder: Path) -> dict[str, Any] | None:
    """The launch config of the profile's last launch, if its extension copy still holds one."""
    try:
        loaded: Any = json.loads((folder / EXTENSION_COPY / LAUNCH_CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cast(dict[str, Any], loaded) if isinstance(loaded, dict) else None


def launch_config(name: str, instance: str, pilot: bool, sites: list[str] | None = None) -> dict[str, Any]:
    """The launch-config.json the extension copy carries (a new nonce each launch).

    The extension applies it once per nonce: the pilot on or off as given, and its scope (`sites`, or
    every site when None).
    """
    return {
        "pilot": pilot,
        "sites": sites,
        "profile": name,
        "instance_id": instance,
        "label": label(name),
        # The extension applies a config once per nonce: replaying an old file changes nothing.
        "nonce": secrets.token_hex(16),
    }


def copy_extension(folder: Path, config: dict[str, Any], source: Path | None = None) -> Path:
    """Refresh `<profile>/extension` from the extension source and add launch-config.json."""
    source = source or paths.extension_dir()
    if not (source / "manifest.json").is_file():
        raise TabPilotError(ErrorCode.LAUNCH_FAILED, f"no extension at {source} (manifest.json missing)")
    target = folder / EXTENSION_COPY
    staging = folder / f".{EXTENSION_COPY}.new"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=_IGNORE)
    forget_stale_worker(folder, _digest(staging))
    (staging / LAUNCH_CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def _digest(tree: Path) -> str:
    """A digest of every file under `tree`, by path and content."""
    h = hashlib.sha256()
    for f in sorted(p for p in tree.rglob("*") if p.is_file()):
        h.update(f.relative_to(tree).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def forget_stale_worker(folder: Path, digest: str) -> None:
    """Chrome keeps an extension's service worker scripts from the registration it made, and registers
    anew only for a new manifest version: an extension copy changed under the same version (an upgrade
    of TabPilot, a checkout) would run its old worker against its new page files. So when the copy's
    digest differs from the one the profile last ran, the profile's service worker registrations go
    (a dedicated profile's own), and the browser registers the extension's afresh."""
    marker = folder / EXTENSION_DIGEST
    try:
        before = marker.read_text(encoding="utf-8").strip()
    except OSError:
        before = None
    if before == digest:
        return
    shutil.rmtree(folder / "Default" / "Service Worker", ignore_errors=True)
    marker.write_text(digest + "\n", encoding="utf-8")
