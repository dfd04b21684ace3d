"""Tab and history actions: back, forward, reload, new_tab, switch_tab, close_tab; track_tab, untrack_tab."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ...wire.messages import AddRedaction, AddSecretPattern, CloseTab, History, NewTab, SwitchTab, TrackTab
from .base import Call
from .configure import CONFIGURE
from .interact import INTERACT


class PageResult(TypedDict):
    tab_id: int
    url: str
    title: str


class NewTabResult(TypedDict):
    tab_id: int
    url: str
    title: str
    active: bool


class CloseTabResult(TypedDict):
    closed_tab_id: int
    url: str


class TrackResult(TypedDict):
    tracked_tab_id: int | None


def _page(value: dict[str, Any]) -> PageResult:
    return {"tab_id": value["tab_id"], "url": value.get("url", ""), "title": value.get("title", "")}


async def _history(call: Call, op: str, tab_id: int | None, timeout_ms: int) -> PageResult:
    return _page(await call.send(History(id=0, op=op, tab_id=tab_id, timeout_ms=timeout_ms)))


@INTERACT.action
async def back(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """go back one page in the tab's history and wait for it to load."""
    return await _history(call, "back", tab_id, timeout_ms)


@INTERACT.action
async def forward(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """go forward one page in the tab's history and wait for it to load."""
    return await _history(call, "forward", tab_id, timeout_ms)


@INTERACT.action
async def reload(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """reload the tab and wait for the load."""
    return await _history(call, "reload", tab_id, timeout_ms)


@INTERACT.action
async def new_tab(
    call: Call,
    url: str | None = None,
    active: Annotated[bool, Field(description="new_tab: bring it to the front (default true).")] = True,
    timeout_ms: int = 30_000,
) -> NewTabResult:
    """open a tab (on url, waiting for its load); an active one takes over tracking if a tab is tracked."""
    value = await call.send(NewTab(id=0, url=url, active=active, timeout_ms=timeout_ms))
    return {**_page(value), "active": bool(value.get("active"))}


@INTERACT.action
async def switch_tab(call: Call, tab_id: int) -> PageResult:
    """bring tab_id to the front (and move tracking to it if a tab is tracked)."""
    return _page(await call.send(SwitchTab(id=0, tab_id=tab_id)))


@INTERACT.action
async def close_tab(call: Call, tab_id: int | None = None) -> CloseTabResult:
    """close tab_id (default: the tab commands go to)."""
    value = await call.send(CloseTab(id=0, tab_id=tab_id))
    return {"closed_tab_id": value["closed_tab_id"], "url": value.get("url", "")}


@CONFIGURE.action
async def track_tab(call: Call, tab_id: int | None = None) -> TrackResult:
    """send commands without a tab_id to tab_id (default: the active tab) until it closes or untrack_tab."""
    value = await call.send(TrackTab(id=0, tab_id=tab_id))
    return {"tracked_tab_id": value.get("tracked_tab_id")}


@CONFIGURE.action
async def untrack_tab(call: Call) -> TrackResult:
    """stop tracking: commands without a tab_id go to the active tab again."""
    await call.send(TrackTab(id=0, track=False))
    return {"tracked_tab_id": None}


class RedactionResult(TypedDict):
    added: list[str]
    selectors: list[str]


@CONFIGURE.action
async def add_redaction(
    call: Call,
    selectors: Annotated[
        list[str], Field(description="add_redaction: CSS selectors whose elements show as [REDACTED].")
    ],
) -> RedactionResult:
    """also redact elements matching selectors in every page output (you can add, never remove:
    the user's own list is edited in the popup); returns the list now in force."""
    value: Any = await call.send(AddRedaction(id=0, selectors=selectors))
    return {"added": list(value["added"]), "selectors": list(value["selectors"])}


class PatternResult(TypedDict):
    added: list[str]
    patterns: list[str]


@CONFIGURE.action
async def add_secret_pattern(
    call: Call,
    patterns: Annotated[
        list[str],
        Field(description="add_secret_pattern: JavaScript regexes; matching text shows as [REDACTED]."),
    ],
) -> PatternResult:
    """also mask text matching these regular expressions in every page output and screenshot (prefix
    "luhn:" adds a card-number check; add only, never remove); returns the added patterns in force."""
    value: Any = await call.send(AddSecretPattern(id=0, patterns=patterns))
    return {"added": list(value["added"]), "patterns": list(value["patterns"])}
