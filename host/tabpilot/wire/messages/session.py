"""Whole-extension commands: liveness, status, tab list, cancelling, redaction and secret-pattern
additions, stored browser state and a tab's recorded telemetry."""

from __future__ import annotations

from ..timer import TimeoutMs
from .base import Command


class Ping(Command, tag="ping"):
    """Round trip to the extension's service worker."""


class GetStatus(Command, tag="status"):
    """Extension state: pilot toggle, versions, instance."""


class ListTabs(Command, tag="tabs"):
    """Open tabs with id, url, title, active."""


class Cancel(Command, tag="cancel"):
    """Stop the command whose id is `target`, if it is still running."""

    target: int


class AddRedaction(Command, tag="add_redaction"):
    """Redact elements matching these CSS selectors too (in every page output). The agent can add to
    the user's list, never remove from it; only the popup edits the user's own list."""

    selectors: list[str]


class AddSecretPattern(Command, tag="add_secret_pattern"):
    """Mask text matching these regular expressions too (secret-shaped text, in every page output and
    screenshot). The agent can add to the user's pattern list, never remove from it; it can list the
    patterns it added (`op: "list"`) and remove them (`op: "remove"`)."""

    patterns: list[str] = []  # noqa: RUF012 - msgspec copies mutable defaults
    op: str = "add"  # "add" | "list" | "remove"


class BrowserState(Command, tag="state"):
    """Save, load, list or delete a named snapshot of a site's storage and cookies (values stay in the
    extension: answers carry names, URL, time, sizes and counts only)."""

    op: str  # "save" | "load" | "list" | "delete"
    name: str | None = None
    include_url: bool = True
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 30_000


class Telemetry(Command, tag="telemetry"):
    """Console errors (`kind` "errors") or network requests ("network") a tab recorded after `since`."""

    kind: str
    since: int = 0
    limit: int = 100
    tab_id: int | None = None
