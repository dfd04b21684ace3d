"""The reply to reading one detail page in a background tab (extract's `follow`)."""

from __future__ import annotations

from typing import Any

from .base import Reply
from .reading import FieldWarning


class ExtractTabReply(Reply):
    """The page's rows (at most one), where it landed, its HTTP status; `redirected`: landed elsewhere
    than asked (a login page) and not read."""

    rows: list[list[Any]] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance
    count: int = 0
    warnings: list[FieldWarning] = []  # noqa: RUF012 - as above
    landed: str | None = None
    type: str | None = None
    status: int | None = None
    redirected: bool = False
    kept_tab_id: int | None = None  # asked with `pool`: the tab left open for the pool's next page


class ReleaseTabsReply(Reply):
    """How many of the pool's background tabs were closed."""

    closed: int = 0
