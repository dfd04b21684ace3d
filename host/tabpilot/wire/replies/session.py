"""Replies of the whole-extension commands: ping, status, tabs, cancel, redaction and secret-pattern
additions, stored browser state, telemetry."""

from __future__ import annotations

from typing import Any

from .base import Reply, TabReply


class PingReply(Reply):
    """The service worker answered."""

    pong: bool = False


class StatusReply(Reply):
    """The extension's state: pilot toggle, versions, identity, tracked tab, allowed sites (null: all)."""

    pilot: bool = False
    extension_version: str = ""
    protocol: int = 0
    instance_id: str = ""
    label: str = ""
    profile: str = ""
    browser_name: str = ""
    browser_version: str = ""
    tracked_tab_id: int | None = None
    sites: list[str] | None = None


class TabInfo(Reply):
    """One open tab (a site the person did not allow shows its origin only)."""

    id: int | None = None
    url: str = ""
    title: str = ""
    active: bool = False
    window_id: int | None = None


class TabsReply(Reply):
    """Every open tab."""

    tabs: list[TabInfo] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance


class CancelReply(Reply):
    """Whether a running command was stopped."""

    cancelled: bool = False


class AddRedactionReply(Reply):
    """The selectors added now, and every selector the agent added so far."""

    added: list[str] = []  # noqa: RUF012 - as above
    selectors: list[str] = []  # noqa: RUF012 - as above


class AddSecretPatternReply(Reply):
    """The patterns added (or removed) now, and every pattern the agent added so far."""

    added: list[str] = []  # noqa: RUF012 - as above
    patterns: list[str] = []  # noqa: RUF012 - as above
    removed: list[str] = []  # noqa: RUF012 - as above


class BrowserStateReply(TabReply):
    """A state op's answer: names, URL, time, sizes and counts only (values stay in the extension)."""

    snapshot_name: str | None = None
    timestamp: Any = None
    size_bytes: int | None = None
    counts: dict[str, Any] | None = None
    snapshots: list[dict[str, Any]] | None = None


class TelemetryReply(Reply):
    """Recorded console errors or requests after a cursor; `more` when the limit cut them."""

    items: list[dict[str, Any]] = []  # noqa: RUF012 - as above
    cursor: int = 0
    dropped: int = 0
    more: bool = False
    recording: bool = False
    tab_id: int | None = None
