"""The reply of ask_secret."""

from __future__ import annotations

import msgspec

from .base import Reply


class AskSecretReply(Reply):
    """`open`: the page's ask_id and tab; `wait`: the values the person typed, by name; `close`:
    whether a page was still open."""

    ask_id: str | None = None
    tab_id: int | None = None
    values: dict[str, str] = msgspec.field(default_factory=lambda: dict[str, str]())
    closed: bool | None = None
