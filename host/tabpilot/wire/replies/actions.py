"""Replies of the page commands aimed at one element (and wait_for, screenshot)."""

from __future__ import annotations

from .base import Reply, TabReply


class OpenedTab(Reply):
    """A tab that a clicked link opened."""

    tab_id: int | None = None
    url: str = ""


class Bounds(Reply):
    """An element's box in CSS pixels."""

    x: float = 0
    y: float = 0
    width: float = 0
    height: float = 0


class ActionReply(TabReply):
    """What an element action did, and the navigation it started (`url`: where the tab is now)."""

    navigated: bool | None = None
    loaded: bool | None = None
    navigation_error: str | None = None
    opened_tab: OpenedTab | None = None
    selected: list[str] | None = None
    checked: bool | None = None
    changed: bool | None = None
    scroll_x: float | None = None
    scroll_y: float | None = None
    max_y: float | None = None
    success: bool | None = None
    bounds: Bounds | None = None
    # A fill/type/press into a secret field (a password field, or one the page redacts).
    secret: bool | None = None
    sensitive: bool | None = None


class FillFormReply(ActionReply):
    """How many fields were filled, and as what (fill, select, check)."""

    filled: int = 0
    fields: list[str] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance


class WaitForReply(TabReply):
    """What was waited for and came true."""

    selector: str | None = None
    state: str | None = None
    text: str | None = None


class ScreenshotReply(Reply):
    """The picture (base64 `data` of `mime`) and its size in pixels."""

    data: str = ""
    mime: str = ""
    width: int | None = None
    height: int | None = None
    tab_id: int | None = None
    full_page: bool | None = None
