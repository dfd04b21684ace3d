"""interact back / forward / reload (a tab's history) and new_tab / switch_tab / close_tab."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import CloseTab, History, NewTab, SwitchTab
from ..base import Call


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


def _page(value: dict[str, Any]) -> PageResult:
    return {"tab_id": value["tab_id"], "url": value.get("url", ""), "title": value.get("title", "")}


async def _history(call: Call, op: str, tab_id: int | None, timeout_ms: int) -> PageResult:
    return _page(await call.send(History(id=0, op=op, tab_id=tab_id, timeout_ms=timeout_ms)))


async def back(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """go back one page in the tab's history and wait for it to load."""
    return await _history(call, "back", tab_id, timeout_ms)


async def forward(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """go forward one page in the tab's history and wait for it to load."""
    return await _history(call, "forward", tab_id, timeout_ms)


async def reload(call: Call, tab_id: int | None = None, timeout_ms: int = 30_000) -> PageResult:
    """reload the tab and wait for the load."""
    return await _history(call, "reload", tab_id, timeout_ms)


async def new_tab(
    call: Call,
    url: str | None = None,
    active: Annotated[bool, Field(description="new_tab: bring it to the front (default true).")] = True,
    timeout_ms: int = 30_000,
) -> NewTabResult:
    """open a tab (on url, waiting for its load); an active one takes over tracking if a tab is tracked."""
    value = await call.send(NewTab(id=0, url=url, active=active, timeout_ms=timeout_ms))
    return {**_page(value), "active": bool(value.get("active"))}


async def switch_tab(call: Call, tab_id: int) -> PageResult:
    """bring tab_id to the front (and move tracking to it if a tab is tracked)."""
    return _page(await call.send(SwitchTab(id=0, tab_id=tab_id)))


async def close_tab(call: Call, tab_id: int | None = None) -> CloseTabResult:
    """close tab_id (default: the tab commands go to)."""
    value = await call.send(CloseTab(id=0, tab_id=tab_id))
    return {"closed_tab_id": value["closed_tab_id"], "url": value.get("url", "")}
