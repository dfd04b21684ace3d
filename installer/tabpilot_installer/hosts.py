"""Register and unregister the native host: launcher, manifest files, Windows registry keys."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from . import browsers, manifest, record
from .journal import Journal, remove_empty_dirs
from .launcher import launcher_path, write_launcher
from .machine import Machine, concrete
from .registry import Registry, WinRegistry


@dataclass
class Report:
    """Lines saying what was done, for the person who ran the command."""

    lines: list[str] = field(default_factory=list[str])

    def add(self, line: str) -> None:
        """Append a line."""
        self.lines.append(line)


def _registry(machine: Machine, registry: Registry | None) -> Registry | None:
    if not machine.is_windows:
        return None
    return registry if registry is not None else WinRegistry()


def install_hosts(
    machine: Machine,
    names: list[str],
    *,
    user_data_dir: PurePath | None = None,
    python: str = sys.executable,
    registry: Registry | None = None,
    template: str | None = None,
) -> tuple[list[record.HostEntry], Report]:
    """Write the launcher and a manifest for each browser, record them, and say what was written.

    All or nothing: if any step fails, every file and folder this run wrote is removed again (older
    versions restored), so a failed install leaves the machine as it found it."""
    journal = Journal()
    reg = _registry(machine, registry)
    keys_set: list[tuple[str, str | None]] = []
    try:
        return _install(machine, names, user_data_dir, python, reg, template, journal, keys_set)
    except BaseException:
        journal.rollback()
        for key, old in reversed(keys_set):
            assert reg is not None
            if old is None:
                reg.delete_key(key)
            else:
                reg.set_default(key, old)
        raise


def _install(
    machine: Machine,
    names: list[str],
    user_data_dir: PurePath | None,
    python: str,
    reg: Registry | None,
    template: str | None,
    journal: Journal,
    keys_set: list[tuple[str, str | None]],
) -> tuple[list[record.HostEntry], Report]:
    report = Report()
    data_dir = concrete(machine.tabpilot_data())
    rec = record.load(data_dir)
    journal.will_write(concrete(launcher_path(machine)))
    launcher = write_launcher(machine, python)
    report.add(f"wrote launcher  {launcher}")
    data = manifest.render(launcher, template)
    if user_data_dir is not None and not machine.is_windows:
        # One folder serves whichever browser runs with that --user-data-dir.
        names = names[:1] or ["chromium"]
    entries: list[record.HostEntry] = []
    for name in names:
        path = browsers.manifest_path(machine, name, user_data_dir)
        journal.will_write(concrete(path))
        manifest.write(concrete(path), data)
        key = None
        if reg is not None:
            key = browsers.registry_key(name)
            keys_set.append((key, reg.get_default(key)))
            reg.set_default(key, str(path))
            report.add(f"wrote registry  HKCU\\{key} = {path}  ({name})")
        else:
            report.add(f"wrote manifest  {path}  ({name})")
        udd = str(user_data_dir) if user_data_dir is not None else None
        entries.append(record.HostEntry(name, str(path), key, udd))
    rec.launcher = str(launcher)
    for entry in entries:
        rec.add_host(entry)
    journal.will_write(record.record_path(data_dir))
    rec.created_dirs += [str(d) for d in journal.new_dirs if str(d) not in rec.created_dirs]
    report.add(f"recorded in     {record.save(data_dir, rec)}")
    return entries, report


def uninstall_hosts(
    machine: Machine,
    names: list[str] | None = None,
    *,
    user_data_dir: PurePath | None = None,
    registry: Registry | None = None,
) -> Report:
    """Undo recorded host registrations (all, or those of `names` / `user_data_dir`)."""
    report = Report()
    reg = _registry(machine, registry)
    data_dir = concrete(machine.tabpilot_data())
    rec = record.load(data_dir)
    udd = str(user_data_dir) if user_data_dir is not None else None

    def selected(entry: record.HostEntry) -> bool:
        if udd is not None:
            return entry.user_data_dir == udd
        return names is None or entry.browser in names

    removing = [h for h in rec.hosts if selected(h)]
    rec.hosts = [h for h in rec.hosts if not selected(h)]
    still_used = {h.manifest for h in rec.hosts}
    for entry in removing:
        if entry.registry_key and reg is not None:
            # Only delete a key that still points at our manifest: someone may have re-registered.
            if reg.get_default(entry.registry_key) == entry.manifest:
                reg.delete_key(entry.registry_key)
                report.add(f"removed registry  HKCU\\{entry.registry_key}")
            else:
                report.add(f"left registry     HKCU\\{entry.registry_key} (points elsewhere now)")
        if entry.manifest in still_used:
            continue
        path = Path(entry.manifest)
        if manifest.is_ours(path):
            path.unlink()
            report.add(f"removed manifest  {path}  ({entry.browser})")
        elif path.exists():
            report.add(f"left manifest     {path} (not ours any more)")
        still_used.add(entry.manifest)
    if not rec.hosts and rec.launcher:
        launcher = Path(rec.launcher)
        if launcher.exists():
            launcher.unlink()
            report.add(f"removed launcher  {launcher}")
        rec.launcher = None
    if not removing:
        report.add("no recorded native host registration matched")
    save_after_uninstall(data_dir, rec, report)
    return report


def save_after_uninstall(data_dir: Path, rec: record.InstallRecord, report: Report) -> None:
    """Save the record; once nothing of ours is left, remove it and the folders install made (those
    that are empty: a folder someone else put files in stays)."""
    if rec.hosts or rec.mcp_clients or rec.launcher is not None:
        record.save(data_dir, rec)
        return
    made, rec.created_dirs = rec.created_dirs, []
    record.save(data_dir, rec)  # empty: the file goes
    for folder in remove_empty_dirs([*made, str(data_dir)]):
        report.add(f"removed folder    {folder}")
