"""A run's rows on disk as they are read: `results/corr-*.journal` in the data folder (0600, in a 0700
folder), one JSON line per event, each page's rows appended as one write the moment the page is read.
A host or browser that dies mid-run loses at most the page in flight; `resume` continues from the last
page written; a result too big to answer inline is read back from here (resources/read, `tabpilot
results export`). The host keeps no list of the run's rows beyond the first `budget` bytes of them.

Lines: `{"k":"run", cid, owner, digest}` first; `{"k":"page", step, url, n, rows, next?, tab?}` (`next`:
where its next link leads; `tab`: the tab's page, when this one was fetched without moving it);
`{"k":"done", step}` when an extract step finished; `{"k":"end", result}` (the answer without its
data). A resumed run appends `{"k":"resume"}` and goes on in the same file: an end line with lines
after it is no end. A last line cut short (the process died writing it) is ignored.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import msgspec

from . import urlscrub
from .store import CORRELATION_ID
from .typed import scrub

RUNS_KEPT = 10
HEAD_ROWS = 20  # rows a handle answer carries, at most...
HEAD_BYTES = 32_768  # ...and at most this many bytes of them
SCHEME = "tabpilot://results/"

_encoder = msgspec.json.Encoder()
_evict_lock = threading.Lock()


class _Line(msgspec.Struct, omit_defaults=True):
    """One journal line as read back; rows stay raw until a reader wants them."""

    k: str
    step: int = -1
    url: str | None = None
    next: str | None = None
    tab: str | None = None
    n: int = 0
    rows: msgspec.Raw = msgspec.Raw(b"[]")
    cid: str = ""
    owner: str = ""
    digest: str = ""
    budget: int = 0
    result: dict[str, Any] | None = None


_line_decoder = msgspec.json.Decoder(_Line)
_rows_decoder = msgspec.json.Decoder(list[Any])


def path_of(root: Path, correlation_id: str) -> Path | None:
    """Where a run's journal lives (None for an id that is not a correlation id)."""
    if not CORRELATION_ID.match(correlation_id):
        return None
    return root / "results" / f"{correlation_id}.journal"


Tab = str | None  # the tab's page while a page was fetched without moving it (None: not so)
# By the value's own type: one look-up per value (a page's every value is looked at); a subclass (a
# bool is an int) is matched in this order.
_KINDS: dict[type, str] = {
    type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", list: "array"
}  # fmt: skip


def _kind(value: Any) -> str:
    found = _KINDS.get(value.__class__)
    return found or next((name for kind, name in _KINDS.items() if isinstance(value, kind)), "object")


def origin_of(url: str | None) -> str | None:
    """A page URL's scheme://host:port/, what the scope of a served result is checked against."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/" if parts.netloc else None


@dataclass
class Tally:
    """What a journal holds so far, without its rows: counts, field types, the origins of its pages."""

    rows: int = 0
    pages: int = 0
    bytes: int = 2  # the JSON array's brackets
    fields: dict[str, set[str]] = field(default_factory=dict[str, set[str]])
    origins: set[str] = field(default_factory=set[str])
    url: str | None = None  # the last page's

    def add(self, url: str | None, n: int, raw_len: int, rows: list[Any] | None = None) -> None:
        """A page of `n` rows whose JSON array is `raw_len` bytes (`rows`: to learn their fields' types)."""
        if n:
            self.bytes += raw_len - 2 + (1 if self.rows else 0)
        self.rows += n
        self.pages += 1
        found = origin_of(url)
        if found is not None:
            self.origins.add(found)
        self.url = url or self.url
        for row in rows or ():
            if not isinstance(row, dict):  # a script's rows may be any JSON
                continue
            for name, value in cast(dict[str, Any], row).items():
                self.fields.setdefault(name, set()).add(_kind(value))

    def schema(self) -> dict[str, str]:
        """Each field's JSON type(s) as seen, e.g. {"price": "number|null"}."""
        return {name: "|".join(sorted(kinds)) for name, kinds in self.fields.items()}


@dataclass
class Point:
    """Where an interrupted extract step goes on: load `url` (None: stay), drop the rows of the first
    `skip` pages the walk reads (already journaled), number the first page read `first`."""

    url: str | None
    skip: int
    first: int
    rows: int  # rows the step journaled before
    # Pages fetched while the tab stayed on `tab`: a tab still there fetches `url` (what it read ahead for
    # the run that stopped is in it a while); `last` (the last page journaled) is where it goes to render.
    tab: str | None = None
    last: str | None = None


@dataclass
class Recovered:
    """A journal read back: its header, every page's (step, url, rows), which steps finished, and by
    step where its last page's next link leads ("": nowhere)."""

    owner: str
    digest: str
    budget: int
    tally: Tally
    pages: list[tuple[int, str | None, int]]
    done: set[int]
    end: dict[str, Any] | None
    next: dict[int, str] = field(default_factory=dict[int, str])
    tab: dict[int, str] = field(default_factory=dict[int, str])  # by step: the tab's page (lines' `tab`)
    # Where each page with rows starts: (the number of its first row, its line's place in the file), so
    # that rows_of reads from the page holding a row instead of from the file's start.
    starts: list[tuple[int, int]] = field(default_factory=list[tuple[int, int]])

    def point(self, step: int, max_pages: int | None = None) -> Point | None:
        """Where step `step` goes on, if it read pages but did not finish (`max_pages`: a walk's cap)."""
        mine = [(url, n) for s, url, n in self.pages if s == step]
        if step in self.done or not mine:
            return None
        rows = sum(n for _, n in mine)
        after = self.next.get(step) if max_pages is not None and len(mine) < max_pages else None
        last, tab = mine[-1][0], self.tab.get(step)
        if after and urlscrub.REDACTED not in after:
            # The page the last one links to is the first not journaled: none is read twice for its link.
            fetched = bool(tab and last) and urlscrub.REDACTED not in f"{tab} {last}"
            return Point(after, 0, len(mine) + 1, rows, *((tab, last) if fetched else (None, None)))
        redacted = last is not None and urlscrub.REDACTED in last
        # A URL that names the page (a link pager's) is loaded again: one page read twice at most. Pages
        # redrawn in place share one URL: the walk starts over and drops what it had.
        if last and not redacted and (len(mine) == 1 or mine[-2][0] != last):
            return Point(last, 1, len(mine), rows)
        first = mine[0][0]
        usable = first if first and urlscrub.REDACTED not in first else None
        return Point(usable, len(mine), 1, rows)


class Journal:
    """The writer: one run's file, opened for appending, plus the rows kept for an inline answer."""

    def __init__(
        self,
        path: Path | None,
        budget: int,
        owner: str = "",
        tally: Tally | None = None,
        *,
        write: bool = True,
    ) -> None:
        self.path = path
        self.budget = budget
        self.owner = owner  # the browser instance whose run it is: its rows are served through it only
        self.tally = tally or Tally()
        self.recovered: Recovered | None = None
        self._rows: list[dict[str, Any]] = []  # every row while they fit the budget, then the head
        self._over = self.tally.bytes > budget
        self._fd: int | None = None
        if path is not None and write:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)

    @classmethod
    def create(cls, root: Path, correlation_id: str, owner: str, digest: str, budget: int) -> Journal:
        path = path_of(root, correlation_id)
        journal = cls(path, budget, owner)
        journal._write(
            {"k": "run", "cid": correlation_id, "owner": owner, "digest": digest, "budget": budget}
        )
        _evict(root / "results", correlation_id)
        return journal

    @classmethod
    def reopen(
        cls,
        root: Path,
        found: Recovered,
        correlation_id: str,
        budget: int | None = None,
        *,
        write: bool = True,
    ) -> Journal:
        """A run read back, to go on writing it (`resume`) or only to answer with it."""
        journal = cls(
            path_of(root, correlation_id), budget or found.budget, found.owner, found.tally, write=write
        )
        journal.recovered = found
        wanted = HEAD_ROWS if journal._over else found.tally.rows
        journal._rows = list(rows_of(root, correlation_id, 0, wanted))
        if write:
            journal._write({"k": "resume"})
        return journal

    def _write(self, value: Any) -> None:
        self._put(_encoder.encode(value) + b"\n")

    def _put(self, line: bytes) -> None:
        # One write per line: a process killed mid-run leaves whole lines and at most one cut short.
        written = 0 if self._fd is None else os.write(self._fd, line)
        if self._fd is not None and written != len(line):
            os.write(self._fd, line[written:])

    def page(
        self, step: int, url: str | None, rows: list[Any], secrets: list[str], to: str | None, tab: Tab = None
    ) -> None:
        """One page's rows, scrubbed as answers are, appended and counted (`to`: its next link's URL;
        `tab`: the tab's page, when this one was fetched without moving it)."""
        url = urlscrub.scrub_url(url) if url else url
        rows = cast(list[Any], urlscrub.scrub_value(scrub(rows, secrets)))
        raw = _encoder.encode(rows)
        if self._fd is not None:
            onward = {"next": urlscrub.scrub_url(to)} if to else {}
            if tab:
                onward["tab"] = urlscrub.scrub_url(tab)
            head = _encoder.encode({"k": "page", "step": step, "url": url, "n": len(rows), **onward})
            self._put(head[:-1] + b',"rows":' + raw + b"}\n")
        self.tally.add(url, len(rows), len(raw), rows)
        if not self._over:
            self._rows += rows
            if self.tally.bytes > self.budget:
                self._over = True
                del self._rows[HEAD_ROWS:]
        elif len(self._rows) < HEAD_ROWS:
            self._rows += rows[: HEAD_ROWS - len(self._rows)]

    def step_done(self, step: int) -> None:
        self._write({"k": "done", "step": step})

    def end(self, result: dict[str, Any]) -> None:
        """The run's answer (its data is in the page lines); the file is complete after this."""
        self._write({"k": "end", "result": {k: v for k, v in result.items() if k != "data"}})
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def inline(self, extra_bytes: int = 0) -> list[dict[str, Any]] | None:
        """Every row, when they fit the budget (with `extra_bytes` of other output); else None."""
        return None if self._over or self.tally.bytes + extra_bytes > self.budget else self._rows

    def head(self) -> list[dict[str, Any]]:
        """The first rows, for an answer that hands over the rest by reference."""
        out: list[dict[str, Any]] = []
        used = 2
        for row in self._rows[:HEAD_ROWS]:
            used += len(_encoder.encode(row)) + 1
            if used > HEAD_BYTES and out:
                break
            out.append(row)
        return out


def load(root: Path, correlation_id: str, *, fields: bool = True) -> Recovered | None:
    """A run's journal read back, or None when there is none (`fields`: decode the rows to learn their
    fields' types; else they are only counted)."""
    path = path_of(root, correlation_id)
    if path is None:
        return None
    try:
        f = path.open("rb")
    except OSError:
        return None
    found = Recovered("", "", 0, Tally(), [], set(), None)
    at = 0
    with f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # cut short by a process that died writing it
            place, at = at, at + len(raw)
            try:
                line = _line_decoder.decode(raw)
            except msgspec.DecodeError:
                break
            if line.k == "run":
                found.owner, found.digest, found.budget = line.owner, line.digest, line.budget
                continue
            found.end = line.result if line.k == "end" else None
            if line.k == "page":
                if line.n:
                    found.starts.append((found.tally.rows, place))
                rows = _rows_decoder.decode(line.rows) if fields and line.n else None
                found.tally.add(line.url, line.n, len(line.rows), rows)
                found.pages.append((line.step, line.url, line.n))
                found.next[line.step], found.tab[line.step] = line.next or "", line.tab or ""
            elif line.k == "done":
                found.done.add(line.step)
    return found


def rows_of(
    root: Path, correlation_id: str, offset: int, limit: int, starts: list[tuple[int, int]] | None = None
) -> Iterator[dict[str, Any]]:
    """Rows `offset` .. `offset + limit` of a run, read from its journal (decoding only their pages);
    `starts` (Recovered.starts of that journal): read from the page holding row `offset`."""
    path = path_of(root, correlation_id)
    if path is None or limit <= 0:
        return
    at, place = 0, 0
    if starts:
        at, place = starts[max(0, bisect.bisect_right(starts, (offset, sys.maxsize)) - 1)]
    with contextlib.suppress(FileNotFoundError), path.open("rb") as f:
        f.seek(place)
        for raw in f:
            if not raw.endswith(b"\n") or not raw.startswith(b'{"k":"page"'):
                continue
            try:
                line = _line_decoder.decode(raw)
            except msgspec.DecodeError:
                return
            if at + line.n <= offset:
                at += line.n
                continue
            for row in _rows_decoder.decode(line.rows)[max(0, offset - at) :]:
                yield row
                limit -= 1
                if limit <= 0:
                    return
            at += line.n


def _evict(folder: Path, keep: str) -> None:
    """Only the newest RUNS_KEPT journals stay (and always the one just started)."""
    with _evict_lock:
        aged: list[tuple[int, Path]] = []
        for path in folder.glob("corr-*.journal"):
            with contextlib.suppress(FileNotFoundError):
                aged.append((path.stat().st_mtime_ns, path))
        aged.sort()
        for _, old in aged[: max(0, len(aged) - RUNS_KEPT)]:
            if old.stem != keep:
                with contextlib.suppress(FileNotFoundError):
                    old.unlink()


def uri(correlation_id: str, browser: str = "", offset: int = 0) -> str:
    """The MCP resource that reads a run's rows, a page at a time."""
    query = [f"browser={browser}"] if browser else []
    if offset:
        query.append(f"offset={offset}")
    return SCHEME + correlation_id + ("?" + "&".join(query) if query else "")


def as_dict(value: Any) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}
