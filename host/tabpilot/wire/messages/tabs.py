"""Commands that load, open, close or pick a tab."""

from __future__ import annotations

from ..timer import TimeoutMs
from .base import Command


class Navigate(Command, tag="navigate"):
    """Load a URL in a tab and answer with the final URL and title once loaded."""

    url: str
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 30_000


class History(Command, tag="history"):
    """Go `back` or `forward` in a tab's history, or `reload` it, and wait for the load."""

    op: str
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 30_000


class NewTab(Command, tag="new_tab"):
    """Open a tab (on `url`, waiting for its load, or blank) and answer its id, URL and title."""

    url: str | None = None
    active: bool = True
    timeout_ms: TimeoutMs = 30_000


class SwitchTab(Command, tag="switch_tab"):
    """Make a tab the active one in its window and focus the window."""

    tab_id: int


class CloseTab(Command, tag="close_tab"):
    """Close a tab (default: the one commands go to)."""

    tab_id: int | None = None


class TrackTab(Command, tag="track_tab"):
    """Send commands without a tab_id to this tab (default: the active one); `track=False` stops that."""

    tab_id: int | None = None
    track: bool = True
