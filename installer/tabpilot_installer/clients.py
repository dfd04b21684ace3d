"""Install and uninstall the MCP server entry for named clients, keeping the install record."""

from __future__ import annotations

import sys
from pathlib import Path

from . import mcp_clients, record
from .hosts import Report, save_after_uninstall
from .journal import Journal
from .machine import Machine, concrete


def install_clients(machine: Machine, names: list[str], python: str = sys.executable) -> Report:
    """Add the `tabpilot` server to each client's config; ConfigError leaves that file untouched."""
    report = Report()
    data_dir = concrete(machine.tabpilot_data())
    rec = record.load(data_dir)
    command = mcp_clients.tabpilot_command(python, windows=machine.is_windows)
    journal = Journal()
    try:
        for name in names:
            c = mcp_clients.client(name)
            path = concrete(mcp_clients.config_path(machine, name))
            entry = mcp_clients.server_entry(name, command)
            recorded = any(m.config == str(path) for m in rec.mcp_clients)
            if recorded and mcp_clients.has_server(path, c.key, entry):
                # Nothing would change: no write, no new backup, and the record keeps the first one.
                report.add(f"unchanged       {mcp_clients.SERVER_NAME!r} in {path}  ({c.title})")
                continue
            fresh = not path.parent.exists()
            journal.make_dir(path.parent)  # noted, so uninstall removes a folder made for this file
            try:
                backup = mcp_clients.add_server(path, c.key, entry)
            except BaseException:
                if fresh:
                    journal.rollback()
                raise
            note = f" (backup {backup})" if backup else " (new file)"
            report.add(f"added server    {mcp_clients.SERVER_NAME!r} to {path}{note}  ({c.title})")
            rec.add_mcp(record.McpEntry(name, str(path), c.key, mcp_clients.SERVER_NAME, _s(backup)))
    finally:
        # Record what did get written even when a later client refused.
        rec.created_dirs += [str(d) for d in journal.new_dirs if str(d) not in rec.created_dirs]
        record.save(data_dir, rec)
    return report


def uninstall_clients(machine: Machine, names: list[str] | None = None) -> Report:
    """Remove the entries we added (all recorded ones, or those of `names`)."""
    report = Report()
    data_dir = concrete(machine.tabpilot_data())
    rec = record.load(data_dir)
    targets = [m for m in rec.mcp_clients if names is None or m.client in names]
    for entry in targets:
        created = entry.backup is None
        removed, backup = mcp_clients.remove_server(Path(entry.config), entry.key, created=created)
        if removed and backup is None:
            report.add(f"removed file    {entry.config} (TabPilot had created it)")
        elif removed:
            report.add(f"removed server  {entry.name!r} from {entry.config} (backup {backup})")
        else:
            report.add(f"no {entry.name!r} entry left in {entry.config}")
        rec.mcp_clients.remove(entry)
    for name in names or []:
        if not any(t.client == name for t in targets):
            report.add(f"no recorded entry for {name}: nothing removed")
    save_after_uninstall(data_dir, rec, report)
    return report


def _s(path: Path | None) -> str | None:
    return str(path) if path is not None else None
