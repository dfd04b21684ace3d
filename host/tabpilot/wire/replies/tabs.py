"""Replies of the commands that load, open, close or pick a tab."""

from __future__ import annotations

from .base import Reply, TabReply


class PageLoadedReply(TabReply):
    """A tab that finished loading (navigate, history, new_tab, switch_tab): its URL and title."""

    title: str = ""
    active: bool | None = None


class CloseTabReply(Reply):
    """The tab that was closed and the URL it showed."""

    closed_tab_id: int | None = None
    url: str = ""


class TrackTabReply(Reply):
    """The tab commands without a tab_id now go to (null: the active one)."""

    tracked_tab_id: int | None = None
    url: str | None = None
