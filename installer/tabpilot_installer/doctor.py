"""`tabpilot doctor`: check every link from the browser to the MCP bridge and say how to fix each."""

from __future__ import annotations

import asyncio
import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import click

from tabpilot import paths

from . import browsers, record
from .checks import (
    COMMUNICATION,
    FORBIDDEN,
    NOT_FOUND,
    WARN,
    Check,
    check_launcher,
    check_manifest,
    check_runtime_dir,
    fail,
)
from .live import check_browsers, probe_all
from .machine import Machine, concrete
from .registry import Registry, WinRegistry

EXTENSION_ERRORS = {
    NOT_FOUND: "manifest missing or misnamed, or its path relative or missing: run `tabpilot install`",
    FORBIDDEN: "allowed_origins lacks this extension's id: run `tabpilot install` (the id is pinned)",
    COMMUNICATION: "the launcher is not executable or crashes at start: see the launcher checks above",
}


@dataclass(frozen=True)
class Target:
    """One place a browser looks for our host manifest."""

    label: str
    manifest: Path | None
    install_cmd: str
    missing_detail: str = ""
    # False for an everyday browser TabPilot was never registered with while others are: a warning.
    required: bool = True
    # Why this recorded registration is not checked (the browser is not installed here).
    skipped: str = ""


def targets(
    machine: Machine, browser: str | None, user_data_dir: Path | None, registry: Registry | None = None
) -> list[Target]:
    """Which manifests to check: the user data dir's, the named browser's, else what was installed."""
    if user_data_dir is not None:
        path = concrete(browsers.manifest_path(machine, "chromium", user_data_dir))
        return [
            Target(
                str(user_data_dir),
                path,
                f"tabpilot install --user-data-dir {shlex.quote(str(user_data_dir))}",
            )
        ]
    if browser is not None:
        return _dedupe([_everyday(machine, n, registry) for n in browsers.choose(browser, list)])
    rec = record.load(concrete(machine.tabpilot_data()))
    # A browser's folder that install itself created (for a browser never run here) is no sign of it.
    made = set(rec.created_dirs)
    installed = browsers.detect_installed(
        machine, exists=lambda p: str(p) not in made and concrete(p).exists()
    )
    found: list[Target] = []
    for h in rec.hosts:
        if h.user_data_dir:
            cmd = f"tabpilot install --user-data-dir {shlex.quote(h.user_data_dir)}"
            found.append(Target(h.user_data_dir, Path(h.manifest), cmd))
        elif h.browser in installed:
            found.append(Target(h.browser, Path(h.manifest), f"tabpilot install --browser {h.browser}"))
        else:
            why = f"not installed on this machine (`tabpilot uninstall --browser {h.browser}` forgets it)"
            found.append(Target(h.browser, Path(h.manifest), "", skipped=why))
    recorded = {h.browser for h in rec.hosts if not h.user_data_dir}
    # The everyday browsers found here: each is checked; unregistered ones fail only if nothing is.
    for name in installed or ([] if rec.hosts else ["chromium"]):
        if name not in recorded:
            found.append(_everyday(machine, name, registry, required=not rec.hosts))
    return _dedupe(found)


def _everyday(machine: Machine, name: str, registry: Registry | None, *, required: bool = True) -> Target:
    cmd = f"tabpilot install --browser {name}"
    if machine.is_windows:
        reg = registry if registry is not None else WinRegistry()
        key = browsers.registry_key(name)
        value = reg.get_default(key)
        detail = "" if value else f"registry key HKCU\\{key} is missing"
        return Target(name, Path(value) if value else None, cmd, detail, required)
    return Target(name, concrete(browsers.manifest_path(machine, name)), cmd, required=required)


def _dedupe(found: list[Target]) -> list[Target]:
    seen: set[str] = set()
    unique: list[Target] = []
    for t in found:
        key = str(t.manifest) if t.manifest else t.label
        if key not in seen:
            seen.add(key)
            unique.append(t)
    return unique


def run_checks(machine: Machine, found: list[Target], runtime_dir: Path) -> list[Check]:
    """All checks, in the order a message travels: manifest, launcher, socket dir, browsers."""
    checks: list[Check] = []
    launchers: dict[Path, str] = {}
    for t in found:
        if t.skipped:
            checks.append(Check(f"registration ({t.label})", WARN, t.skipped))
            continue
        missing = t.manifest is None or not t.manifest.exists()
        if not t.required and missing:
            detail = f"not registered (to use TabPilot in {t.label} too, run: {t.install_cmd})"
            checks.append(Check(f"registration ({t.label})", WARN, detail))
            continue
        if t.manifest is None:
            checks.append(
                fail(f"registration ({t.label})", t.missing_detail, f"run: {t.install_cmd}", NOT_FOUND)
            )
            continue
        got, launcher = check_manifest(t.manifest, t.install_cmd)
        checks += got
        if launcher is not None:
            launchers.setdefault(launcher, t.install_cmd)
    for launcher, cmd in launchers.items():
        checks += check_launcher(launcher, cmd)
    dir_check = check_runtime_dir(runtime_dir)
    checks.append(dir_check)
    if not dir_check.failed:
        checks += check_browsers(asyncio.run(probe_all(runtime_dir)))
    return checks


def render(checks: list[Check]) -> str:
    """Human-readable lines, one per check, with the fix under each failure."""
    lines: list[str] = []
    for c in checks:
        lines.append(f"{c.status:<5} {c.name}: {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"      fix: {c.fix}")
        if c.extension_error and c.failed:
            lines.append(f'      (the extension reports: "{c.extension_error}")')
    failed = [c for c in checks if c.failed]
    if failed:
        lines += ["", "If the extension reports an error when it connects:"]
        lines += [f'  "{msg}"\n      -> {fix}' for msg, fix in EXTENSION_ERRORS.items()]
        lines.append(f"\n{len(failed)} check(s) failed.")
    else:
        lines.append("\nAll checks passed.")
    return "\n".join(lines)


@click.command()
@click.option(
    "--browser", "browser_name", type=click.Choice([*browsers.BROWSERS, "all"]), help="Check this one."
)
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Check the registration inside this user data dir (e.g. a dedicated profile).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def command(browser_name: str | None, user_data_dir: Path | None, as_json: bool) -> None:
    """Check each link (manifest, launcher, socket dir, connected browsers, pilot) and print fixes."""
    machine = Machine.current()
    udd = user_data_dir.resolve() if user_data_dir else None
    checks = run_checks(machine, targets(machine, browser_name, udd), paths.runtime_dir())
    failed = any(c.failed for c in checks)
    if as_json:
        click.echo(json.dumps({"ok": not failed, "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        click.echo(render(checks))
    if failed:
        raise SystemExit(1)
