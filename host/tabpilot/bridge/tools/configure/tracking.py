"""configure track_tab / untrack_tab: which tab commands without a tab_id go to."""

from __future__ import annotations

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import TrackTab
from ..base import Call


class TrackResult(TypedDict):
    tracked_tab_id: int | None


async def track_tab(call: Call, tab_id: int | None = None) -> TrackResult:
    """send commands without a tab_id to tab_id (default: the active tab) until it closes or untrack_tab."""
    value = await call.send(TrackTab(id=0, tab_id=tab_id))
    return {"tracked_tab_id": value.get("tracked_tab_id")}


async def untrack_tab(call: Call) -> TrackResult:
    """stop tracking: commands without a tab_id go to the active tab again."""
    await call.send(TrackTab(id=0, track=False))
    return {"tracked_tab_id": None}
