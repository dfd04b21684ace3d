"""A scripted stand-in for the engine's Browser: answers each command from a handler keyed by its type.

A handler returns the result value, returns or raises a TabPilotError, or returns HANG to never
answer (a dead service worker). `TableSite` plays a paginated table the way the extension would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError

Handler = Callable[[Any], Any]
HANG = object()


class ScriptedBrowser:
    """Browser for engine tests: `handlers[tag](command)` answers; `sent` records every command."""

    def __init__(self, handlers: dict[str, Handler] | None = None) -> None:
        self.handlers: dict[str, Handler] = {
            "navigate": lambda c: {"tab_id": 1, "url": c.url, "title": "t"},
            "count": lambda c: {"count": 0, "visible": 0},
            **(handlers or {}),
        }
        self.sent: list[m.Command] = []

    def tags(self, *, telemetry: bool = False) -> list[str]:
        """The types of the commands sent so far, in order (the end-of-run telemetry reads only if asked)."""
        tags = [m.tag_of(type(c)) for c in self.sent]
        return tags if telemetry else [t for t in tags if t != "telemetry"]

    async def call(self, command: m.Command) -> Any:
        self.sent.append(command)
        handler = self.handlers.get(m.tag_of(type(command)))
        if handler is None:
            raise TabPilotError(ErrorCode.UNKNOWN_COMMAND, m.tag_of(type(command)))
        value = handler(command)
        if asyncio.iscoroutine(value):
            value = await value
        if value is HANG:
            await asyncio.Event().wait()
        if isinstance(value, TabPilotError):
            raise value
        return value


@dataclass
class TableSite:
    """A table of `pages` pages; `extract` answers the current page, `paginate` moves to the next."""

    pages: list[list[list[Any]]]
    url: str = "https://data.example/table"
    page: int = 0
    in_place: bool = False
    extracted: list[int] = field(default_factory=list[int])

    def install(self, browser: ScriptedBrowser) -> ScriptedBrowser:
        browser.handlers["extract"] = self.extract
        browser.handlers["paginate"] = self.paginate
        browser.handlers.setdefault("wait_for", lambda c: {"matched": True, "elapsed_ms": 1})
        return browser

    # With `batches`, a Next that redraws answers as the page agent does: the new page's rows, and with
    # `pages` > 1 the pages after it (`more`, at most `batch_cap` in all) and why it stopped (`end`).
    batches: bool = False
    batch_cap: int = 1_000
    clicks: int = 0  # Next clicks made
    commands: list[int] = field(default_factory=list[int])  # `pages` of each paginate command

    def extract(self, c: m.Extract | m.Paginate) -> Any:
        if isinstance(c, m.Extract):
            self.extracted.append(self.page)
        fields = c.fields or []
        rows = [r[: len(fields)] for r in self.pages[self.page]]
        if c.limit is not None:
            rows = rows[: c.limit]
        return {"rows": rows, "count": len(rows), "warnings": [], "url": f"{self.url}?page={self.page + 1}"}

    def paginate(self, c: m.Paginate) -> Any:
        self.commands.append(c.pages)
        if self.page + 1 >= len(self.pages):
            return {"outcome": "end", "reason": "missing", "url": f"{self.url}?page={self.page + 1}"}
        self.page += 1
        self.clicks += 1
        outcome = "redrawn" if self.in_place else "navigated"
        moved: dict[str, Any] = {
            "outcome": outcome,
            "reason": None,
            "url": f"{self.url}?page={self.page + 1}",
        }
        if not (self.batches and c.fields):
            return moved
        moved["page"] = self.extract(c)
        more: list[Any] = []
        left = None if c.limit is None else c.limit - len(moved["page"]["rows"])
        while True:
            if len(more) + 1 >= min(c.pages, self.batch_cap):
                moved["end"] = "pages"
            elif left is not None and left <= 0:
                moved["end"] = "limit"
            elif self.page + 1 >= len(self.pages):
                moved["end"] = "missing"
            else:
                self.page += 1
                self.clicks += 1
                more.append(self.extract(msgspec.structs.replace(c, limit=left)))
                left = None if left is None else left - len(more[-1]["rows"])
                continue
            break
        if more:
            moved["more"] = more
        return moved
