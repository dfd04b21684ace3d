"""configure save_state / load_state / list_states / delete_state: named snapshots of a site's
localStorage, sessionStorage and cookies, kept by the extension. Only names, URLs, times, sizes and
counts come back; the values stay in the browser."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import BrowserState
from ..base import Call

SnapshotName = Annotated[str, Field(description="Name of a browser-state snapshot.")]


class Counts(TypedDict):
    localStorage: int
    sessionStorage: int
    cookies: int


class SavedState(TypedDict):
    snapshot_name: str
    url: str
    timestamp: str
    size_bytes: int
    counts: Counts


class LoadedState(TypedDict):
    snapshot_name: str
    tab_id: int
    url: str
    navigated: bool
    restored: Counts


class StateInfo(TypedDict):
    name: str
    url: str
    timestamp: str
    size_bytes: int
    counts: Counts


class StateList(TypedDict):
    snapshots: list[StateInfo]


class DeletedState(TypedDict):
    deleted: str


def _counts(raw: dict[str, Any]) -> Counts:
    return {
        "localStorage": int(raw.get("localStorage", 0)),
        "sessionStorage": int(raw.get("sessionStorage", 0)),
        "cookies": int(raw.get("cookies", 0)),
    }


async def save_state(call: Call, snapshot_name: SnapshotName, tab_id: int | None = None) -> SavedState:
    """save the tab's site state (localStorage, sessionStorage, cookies incl. httpOnly, URL) as snapshot_name;
    returns only counts and size."""
    v = await call.send(BrowserState(id=0, op="save", name=snapshot_name, tab_id=tab_id))
    return {
        "snapshot_name": v["snapshot_name"],
        "url": v["url"],
        "timestamp": v["timestamp"],
        "size_bytes": v["size_bytes"],
        "counts": _counts(v["counts"]),
    }


async def load_state(
    call: Call,
    snapshot_name: SnapshotName,
    include_url: Annotated[
        bool, Field(description="load_state: open the saved URL afterwards (default true).")
    ] = True,
    tab_id: int | None = None,
) -> LoadedState:
    """clear the site's state and restore snapshot_name into the tab (opening its site if needed)."""
    v = await call.send(
        BrowserState(id=0, op="load", name=snapshot_name, include_url=include_url, tab_id=tab_id)
    )
    return {
        "snapshot_name": v["snapshot_name"],
        "tab_id": v["tab_id"],
        "url": v["url"],
        "navigated": bool(v["navigated"]),
        "restored": _counts(v["restored"]),
    }


async def list_states(call: Call) -> StateList:
    """the saved snapshots: name, url, timestamp, size_bytes, counts."""
    v = await call.send(BrowserState(id=0, op="list"))
    return {
        "snapshots": [
            {
                "name": s["name"],
                "url": s.get("url", ""),
                "timestamp": s.get("timestamp", ""),
                "size_bytes": int(s.get("size_bytes", 0)),
                "counts": _counts(s.get("counts", {})),
            }
            for s in v["snapshots"]
        ]
    }


async def delete_state(call: Call, snapshot_name: SnapshotName) -> DeletedState:
    """delete snapshot_name."""
    v = await call.send(BrowserState(id=0, op="delete", name=snapshot_name))
    return {"deleted": v["deleted"]}
