"""What `tabpilot install` wrote, kept in the data dir, so `tabpilot uninstall` undoes exactly that."""

from __future__ import annotations

from pathlib import Path

import msgspec

from .manifest import atomic_write

RECORD_NAME = "install-record.json"


class HostEntry(msgspec.Struct, omit_defaults=True):
    """One host manifest written for one browser (and maybe a registry key pointing at it)."""

    browser: str
    manifest: str
    registry_key: str | None = None
    user_data_dir: str | None = None


class McpEntry(msgspec.Struct, omit_defaults=True):
    """One server entry added to one MCP client's config file."""

    client: str
    config: str
    key: str
    name: str
    backup: str | None = None


class InstallRecord(msgspec.Struct, omit_defaults=True):
    """Everything installed for this user."""

    launcher: str | None = None
    hosts: list[HostEntry] = msgspec.field(default_factory=list[HostEntry])
    mcp_clients: list[McpEntry] = msgspec.field(default_factory=list[McpEntry])
    # Folders install created (a browser's config folder when that browser is not installed, the
    # launcher's bin/): uninstall removes those that are empty again.
    created_dirs: list[str] = msgspec.field(default_factory=list[str])

    def add_host(self, entry: HostEntry) -> None:
        """Remember a host manifest, replacing an older entry for the same file."""
        self.hosts = [h for h in self.hosts if h.manifest != entry.manifest or h.browser != entry.browser]
        self.hosts.append(entry)

    def add_mcp(self, entry: McpEntry) -> None:
        """Remember an MCP client entry, replacing an older one for the same file."""
        self.mcp_clients = [m for m in self.mcp_clients if m.config != entry.config]
        self.mcp_clients.append(entry)

    def is_empty(self) -> bool:
        """Nothing left to undo."""
        return not self.hosts and not self.mcp_clients and self.launcher is None and not self.created_dirs


def record_path(data_dir: Path) -> Path:
    """The record file in TabPilot's data dir."""
    return data_dir / RECORD_NAME


def load(data_dir: Path) -> InstallRecord:
    """The record, or an empty one (also when the file is unreadable: never guess what to delete)."""
    path = record_path(data_dir)
    try:
        return msgspec.json.decode(path.read_bytes(), type=InstallRecord)
    except FileNotFoundError:
        return InstallRecord()
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"cannot read the install record {path}: {exc}") from exc


def save(data_dir: Path, record: InstallRecord) -> Path:
    """Write the record (or remove the file once nothing is left to undo)."""
    path = record_path(data_dir)
    if record.is_empty():
        path.unlink(missing_ok=True)
        return path
    text = msgspec.json.format(msgspec.json.encode(record), indent=2).decode() + "\n"
    atomic_write(path, text)
    return path
