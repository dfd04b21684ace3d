"""The replies to reading detail pages (extract's `follow`): fetched several at once, or one in a
background tab."""

from __future__ import annotations

from typing import Any

from .base import Reply
from .reading import FetchExtractReply, FieldWarning


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


class PageFailure(Reply):
    """One page's failure in a reply for several: its error code, message and data."""

    code: str = ""
    message: str = ""
    data: dict[str, Any] | None = None


class FetchedPage(Reply):
    """One page of a `fetch_details`: its read (`ok`), its failure (`error`), or `deferred`: left out of
    a big answer, to be asked for alone."""

    ok: FetchExtractReply | None = None
    error: PageFailure | None = None
    deferred: bool = False


class FetchDetailsReply(Reply):
    """The pages asked for, in order."""

    pages: list[FetchedPage] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance
