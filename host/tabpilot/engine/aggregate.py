"""Aggregates: the rows of repeated extracts with one extraction_id, merged and deduplicated.

The agent walks the pages itself (navigate, extract {extraction_id}, navigate, ...); each extract adds
its rows here. A row is a duplicate when its `key_fields` values (or, without key fields, the whole
row as canonical JSON) were seen before; the first one seen is kept.

Aggregates are persisted next to the strategies (`<root>/aggregates/ex-*.json`, 0600, atomic), so a
host restarted by the browser in the middle of a walk keeps the pages already read; the rows are what
the kept results already hold on disk, under the same protection. Each is capped (rows and bytes: the
summary says so when rows were dropped) and only the most recently used few are kept.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import msgspec

from .store import _private_dir, write_private  # pyright: ignore[reportPrivateUsage]
from .strategies import EXTRACTION_ID

MAX_ROWS = 10_000
MAX_BYTES = 8 * 1024 * 1024
MAX_AGGREGATES = 20
MAX_URLS = 500

_encoder = msgspec.json.Encoder(order="sorted")


class AggregateDoc(msgspec.Struct, omit_defaults=True):
    """An aggregate as stored."""

    extraction_id: str
    rows: list[Any] = []
    key_fields: list[str] = []
    pages: int = 0  # pages read, each counted once (see Aggregate.add)
    urls: list[str] = []
    walks: dict[str, int] = {}  # a walk's first page -> the most pages a walk from it read
    duplicates: int = 0
    dropped: int = 0  # rows not kept because the cap was reached
    updated: float = 0.0


_decoder = msgspec.json.Decoder(AggregateDoc)


@dataclass
class Aggregate:
    """One aggregate in memory, with the keys of the rows it holds."""

    doc: AggregateDoc
    keys: set[bytes] = field(default_factory=set[bytes])
    size: int = 0

    def key(self, row: Any) -> bytes:
        """What makes a row the same as another: its key fields, else all of it (a script's rows may
        be any JSON: one that is not an object is its own key)."""
        if self.doc.key_fields and isinstance(row, dict):
            fields = cast(dict[str, Any], row)
            return _encoder.encode([fields.get(k) for k in self.doc.key_fields])
        return _encoder.encode(row)

    def rebuild(self) -> None:
        """Keys and size from the rows (after loading, or after the key fields changed)."""
        self.keys = {self.key(r) for r in self.doc.rows}
        self.size = sum(len(_encoder.encode(r)) + 1 for r in self.doc.rows)

    def add(self, rows: list[Any], url: str | None, pages: int) -> None:
        """Merge one extract's rows. Pages already counted count once: a one-page re-read of a page
        seen, or a walk over pages from a first page a walk already read (its pages are that walk's,
        as far as it went; a longer walk adds the pages past them)."""
        d = self.doc
        for row in rows:
            k = self.key(row)
            if k in self.keys:
                d.duplicates += 1
                continue
            whole = not d.key_fields or not isinstance(row, dict)  # the key is the row's JSON and size
            n = len(k if whole else _encoder.encode(row)) + 1
            if len(d.rows) >= MAX_ROWS or self.size + n > MAX_BYTES:
                d.dropped += 1
                continue
            self.keys.add(k)
            d.rows.append(row)
            self.size += n
        if url is None:
            d.pages += max(1, pages)
        elif pages <= 1:
            if url not in d.urls and url not in d.walks:
                d.pages += 1
        else:
            before = d.walks.get(url, 1 if url in d.urls else 0)
            d.pages += max(0, pages - before)
            if pages > before and (url in d.walks or len(d.walks) < MAX_URLS):
                d.walks[url] = pages
        if url is not None and url not in d.urls and len(d.urls) < MAX_URLS:
            d.urls.append(url)
        d.updated = time.time()

    def summary(self) -> str:
        """`"40 unique rows from 2 pages"` (and how many were dropped at the cap)."""
        d = self.doc
        n, p = len(d.rows), d.pages
        text = f"{n} unique row{'s' if n != 1 else ''} from {p} page{'s' if p != 1 else ''}"
        if d.dropped:
            text += f" (capped: {d.dropped} more rows not kept)"
        return text


class Aggregates:
    """The aggregates of one data directory; memory first, written by `flush()` off the caller's path.
    One is read from disk only when asked for (they can be megabytes: a host start reads none)."""

    def __init__(self, root: Path, *, cap: int = MAX_AGGREGATES) -> None:
        self.root = root
        self.cap = cap
        self._loaded: dict[str, Aggregate] = {}
        self._known: dict[str, float] | None = None  # every id, in memory or on disk -> last update
        self._dirty: dict[str, AggregateDoc | None] = {}
        self._lock = threading.Lock()

    @property
    def _dir(self) -> Path:
        return _private_dir(self.root / "aggregates")

    def _ids(self) -> dict[str, float]:
        if self._known is None:
            self._known = {}
            for path in self._dir.glob("ex-*.json"):
                with contextlib.suppress(OSError):
                    self._known[path.stem] = path.stat().st_mtime
        return self._known

    def get(self, extraction_id: str) -> Aggregate | None:
        """The aggregate of a strategy, if any rows were added (a damaged file counts as none)."""
        found = self._loaded.get(extraction_id)
        if found is None and extraction_id in self._ids() and EXTRACTION_ID.match(extraction_id):
            with contextlib.suppress(OSError, msgspec.DecodeError):
                doc = _decoder.decode((self._dir / f"{extraction_id}.json").read_bytes())
                if doc.extraction_id == extraction_id:
                    found = self._loaded[extraction_id] = Aggregate(doc)
                    found.rebuild()
        return found

    def add(
        self,
        extraction_id: str,
        rows: list[Any],
        *,
        url: str | None,
        pages: int,
        key_fields: list[str] | None,
    ) -> Aggregate:
        """Merge an extract's rows into its strategy's aggregate (created on first use)."""
        agg = self.get(extraction_id)
        if agg is None:
            agg = self._loaded[extraction_id] = Aggregate(AggregateDoc(extraction_id))
        if key_fields and key_fields != agg.doc.key_fields:
            agg.doc.key_fields = list(key_fields)
            before = len(agg.doc.rows)
            agg.doc.rows = _unique(agg, agg.doc.rows)
            agg.doc.duplicates += before - len(agg.doc.rows)
        agg.add(rows, url, pages)
        self._ids()[extraction_id] = agg.doc.updated
        self._evict()
        # A snapshot: the rows list is copied (the rows themselves are never changed once added).
        self._dirty[extraction_id] = msgspec.structs.replace(agg.doc, rows=list(agg.doc.rows))
        return agg

    def clear(self, extraction_id: str | None = None) -> list[str]:
        """Forget one aggregate, or all of them; returns the ids cleared."""
        known = self._ids()
        ids = [extraction_id] if extraction_id is not None else sorted(known)
        cleared = [i for i in ids if known.pop(i, None) is not None]
        for i in cleared:
            self._loaded.pop(i, None)
            self._dirty[i] = None
        return cleared

    def _evict(self) -> None:
        known = self._ids()
        for old in sorted(known, key=known.__getitem__)[: max(0, len(known) - self.cap)]:
            del known[old]
            self._loaded.pop(old, None)
            self._dirty[old] = None

    def flush(self) -> None:
        """Write the changes made since the last flush (call it from a worker thread)."""
        with self._lock:
            pending, self._dirty = self._dirty, {}
            folder = self._dir
            for extraction_id, doc in pending.items():
                path = folder / f"{extraction_id}.json"
                if doc is None:
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
                else:
                    write_private(path, _encoder.encode(doc))


def _unique(agg: Aggregate, rows: list[Any]) -> list[Any]:
    """Rows deduplicated under the aggregate's (new) key fields; keys and size rebuilt."""
    seen: set[bytes] = set()
    kept: list[Any] = []
    for row in rows:
        k = agg.key(row)
        if k not in seen:
            seen.add(k)
            kept.append(row)
    agg.doc.rows = kept
    agg.rebuild()
    return kept
