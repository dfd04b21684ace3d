"""Cached extraction strategies: what an extract read (selector + schema, or a script) and where.

A strategy is registered by every extract that returned rows and is rerun by `extraction_id` (or by
`use_cache: true` on a page its URL pattern matches). They live next to the workflows, in the same
store root and with the same safety: one 0600 file per strategy in a 0700 directory, written
atomically; damaged files are skipped; the least recently used go beyond the cap.

The in-memory copy is authoritative for this host; changes are encoded on the event loop and
written by `flush()` in a worker thread, so a rerun does not wait for the disk.
"""

from __future__ import annotations

import contextlib
import datetime
import re
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from . import urlpattern
from .store import _private_dir, write_private  # pyright: ignore[reportPrivateUsage]

MAX_STRATEGIES = 100
EXTRACTION_ID = re.compile(r"^ex-[0-9a-f]{12}$")
# The ExtractStep fields a strategy keeps: everything that says what to read, nothing about pace.
SPEC_FIELDS = (
    "selector",
    "schema",
    "script",
    "css_selector",
    "output_schema",
    "wait_for",
    "paginate",
    "scroll",
    "limit",
    "virtual",
    "follow",
)


class Strategy(msgspec.Struct, omit_defaults=True):
    """One cached way to extract the records of a kind of page."""

    extraction_id: str
    url_pattern: str
    spec: dict[str, Any]  # SPEC_FIELDS that were set, as JSON
    key_fields: list[str] = []
    success_count: int = 0
    failure_count: int = 0
    typical_rows: int = 0  # rows of the last run that found any: what "it used to return" means
    last_rows: int = 0
    created: str = ""
    last_used: float = 0.0

    @property
    def kind(self) -> str:
        """`script` or `schema`."""
        return "script" if self.spec.get("script") is not None else "schema"

    def summary(self) -> dict[str, Any]:
        """The lean listing entry."""
        return {
            "extraction_id": self.extraction_id,
            "url_pattern": self.url_pattern,
            "kind": self.kind,
            "success_count": self.success_count,
            "failure_count": self.failure_count,
            "typical_rows": self.typical_rows,
        }


_decoder = msgspec.json.Decoder(Strategy)
_encoder = msgspec.json.Encoder()
_sorted = msgspec.json.Encoder(order="sorted")


def canonical(spec: dict[str, Any]) -> bytes:
    """The spec as canonical JSON: two equal specs give equal bytes (only for comparing: a schema's
    field order is the order of the row's keys, so the stored spec keeps it)."""
    return _sorted.encode(spec)


def _copy(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy nobody else holds, in its own order."""
    return msgspec.json.decode(_encoder.encode(spec))


def not_found(extraction_id: str, cached: list[Strategy] | None = None, where: str = "") -> TabPilotError:
    """strategy_not_found, listing what is cached (for a host when `where` names one)."""
    listed = [s.summary() for s in cached or []]
    hint = f" for {where}" if where else ""
    return TabPilotError(
        ErrorCode.STRATEGY_NOT_FOUND,
        f"no cached strategy {extraction_id}{hint}; run an extract with selector + schema (or a script) "
        'first, or observe {what: "strategies"} for the cached ones',
        data={"cached": listed} if cached is not None else None,
    )


class StrategyStore:
    """The cached strategies of one data directory (`<root>/strategies/ex-*.json`)."""

    def __init__(self, root: Path, *, cap: int = MAX_STRATEGIES) -> None:
        self.root = root
        self.cap = cap
        self._items: dict[str, Strategy] | None = None
        self._dirty: dict[str, bytes | None] = {}  # id -> bytes to write, or None to delete
        self._clock = 0.0
        self._lock = threading.Lock()  # flushes from worker threads, one at a time

    @property
    def _dir(self) -> Path:
        return _private_dir(self.root / "strategies")

    def _all(self) -> dict[str, Strategy]:
        if self._items is None:
            self._items = {}
            for path in self._dir.glob("ex-*.json"):
                with contextlib.suppress(OSError, msgspec.DecodeError):
                    s = _decoder.decode(path.read_bytes())
                    if path.stem == s.extraction_id:
                        self._items[s.extraction_id] = s
        return self._items

    def all(self) -> list[Strategy]:
        """Every cached strategy, most recently used first."""
        return sorted(self._all().values(), key=lambda s: -s.last_used)

    def get(self, extraction_id: str) -> Strategy:
        """A strategy by id; strategy_not_found when there is none."""
        found = self.get_or_none(extraction_id)
        if found is None:
            raise not_found(extraction_id)
        return found

    def get_or_none(self, extraction_id: str) -> Strategy | None:
        """A strategy by id, or None; one this host does not know yet is looked for on disk (another
        host on the same data directory, e.g. a second browser, may have registered it)."""
        items = self._all()
        found = items.get(extraction_id)
        if found is None and EXTRACTION_ID.match(extraction_id) and extraction_id not in self._dirty:
            with contextlib.suppress(OSError, msgspec.DecodeError):
                s = _decoder.decode((self._dir / f"{extraction_id}.json").read_bytes())
                if s.extraction_id == extraction_id:
                    found = items[extraction_id] = s
        return found

    def matching(self, url: str) -> list[Strategy]:
        """Strategies whose pattern matches `url`: most specific, then most used, then newest first."""
        hits = [s for s in self._all().values() if urlpattern.matches(s.url_pattern, url)]
        return sorted(
            hits, key=lambda s: (-urlpattern.specificity(s.url_pattern), -s.success_count, -s.last_used)
        )

    def for_host(self, url: str) -> list[Strategy]:
        """Strategies learnt on the host of `url`."""
        host = urlpattern.host_of_pattern(url)
        return [s for s in self.all() if urlpattern.host_of_pattern(s.url_pattern) == host]

    def register(self, url: str, spec: dict[str, Any], rows: int, key_fields: list[str] | None) -> Strategy:
        """The strategy for `spec` on pages like `url`: the existing one (counts bumped) or a new one."""
        pattern = urlpattern.derive(url)
        key = canonical(spec)
        for s in self._all().values():
            if s.url_pattern == pattern and canonical(s.spec) == key:
                return self.succeeded(s, rows, key_fields)
        s = Strategy(
            extraction_id=f"ex-{secrets.token_hex(6)}",
            url_pattern=pattern,
            spec=_copy(spec),
            created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        )
        self._all()[s.extraction_id] = s
        self.succeeded(s, rows, key_fields)
        self._evict()
        return s

    def succeeded(self, s: Strategy, rows: int, key_fields: list[str] | None = None) -> Strategy:
        """A run of `s` returned `rows` rows."""
        s.success_count += 1
        s.last_rows = rows
        if rows:
            s.typical_rows = rows
        if key_fields:
            s.key_fields = list(key_fields)
        return self._touch(s)

    def failed(self, s: Strategy) -> Strategy:
        """A run of `s` failed or came back empty where it used to find rows."""
        s.failure_count += 1
        s.last_rows = 0
        return self._touch(s)

    def repaired(
        self, s: Strategy, spec: dict[str, Any], rows: int, key_fields: list[str] | None
    ) -> Strategy:
        """`s` now reads with `spec` (the agent fixed it after strategy_stale); its id stays."""
        s.spec = _copy(spec)
        return self.succeeded(s, rows, key_fields)

    def _touch(self, s: Strategy) -> Strategy:
        # Strictly increasing, so the LRU order holds even for uses within one clock tick.
        s.last_used = self._clock = max(time.time(), self._clock + 1e-6)
        self._dirty[s.extraction_id] = _encoder.encode(s)
        return s

    def _evict(self) -> None:
        items = self._all()
        for s in sorted(items.values(), key=lambda s: s.last_used)[: max(0, len(items) - self.cap)]:
            del items[s.extraction_id]
            self._dirty[s.extraction_id] = None

    def flush(self) -> None:
        """Write the changes made since the last flush (call it from a worker thread)."""
        with self._lock:
            pending, self._dirty = self._dirty, {}
            folder = self._dir
            for extraction_id, data in pending.items():
                path = folder / f"{extraction_id}.json"
                if data is None:
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
                else:
                    write_private(path, data)
