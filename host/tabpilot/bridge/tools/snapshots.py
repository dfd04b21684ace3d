"""The page snapshot an action can return with its result (`snapshot: none | diff | full`)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ...wire import messages as m
from .base import Call

SnapshotMode = Literal["none", "diff", "full"]


class PageSnapshot(TypedDict):
    text: str
    cursor_next: int | None
    truncated: bool
    refs: int
    mode: str
    url: str
    title: str
    tab_id: int
    added: NotRequired[int]
    removed: NotRequired[int]
    note: NotRequired[str]  # the page was too large to walk whole in time


async def take(
    call: Call,
    *,
    tab_id: int | None,
    scope: str | None = None,
    max_chars: int = 6_000,
    cursor: int = 0,
    mode: str = "full",
) -> PageSnapshot:
    """The page in tab `tab_id` (else the tracked or active one) as lean text with @e refs."""
    cmd = m.Snapshot(id=0, tab_id=tab_id, scope=scope, max_chars=max_chars, cursor=cursor, mode=mode)
    return await call.send(cmd)
