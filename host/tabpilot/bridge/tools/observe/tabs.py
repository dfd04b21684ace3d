"""observe what=tabs: the open tabs."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import ListTabs
from ..base import Call


class Tab(TypedDict):
    id: int
    url: str
    title: str
    active: bool
    window_id: int


class TabsResult(TypedDict):
    tabs: list[Tab]


def _tab(raw: dict[str, Any]) -> Tab:
    return {
        "id": raw["id"],
        "url": raw.get("url", ""),
        "title": raw.get("title", ""),
        "active": bool(raw.get("active")),
        "window_id": raw.get("window_id", -1),
    }


async def tabs(call: Call) -> TabsResult:
    """the open tabs: id, url, title, active, window_id."""
    value = await call.send(ListTabs(id=0))
    return {"tabs": [_tab(t) for t in value["tabs"]]}
