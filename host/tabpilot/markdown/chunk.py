"""Markdown split into chunks of at most `max_chars` at the best structural boundaries.

A chunk ends where the structure allows it (pieces.py): before a heading rather than a paragraph,
a paragraph rather than a table row, a table row rather than a list item, a list item rather than a
sentence. Among the boundaries that keep a chunk within the budget, the best one in its second half
wins (ties: the later one), so chunks are neither cut mid-thought nor tiny; with no boundary in the
second half the chunk takes the last one that fits. A table cut between rows repeats its header and
separator rows at the top of the next chunk; a code block longer than a chunk is cut between lines and
each part is fenced on its own (the `continues` note says so). A single unit longer than a chunk (one
table row, list item, code line, word) makes a chunk of its own, flagged `oversize`.

Joining the chunks' `body` gives the markdown back exactly; `text` is what the agent reads. The split
depends only on the markdown and the budget, so chunk k of the same page is the same on every call.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from .pieces import CODE_LINE, ROW, Piece, pieces


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk: the exact slice `body`, and what is added around it to keep it valid markdown."""

    body: str
    prefix: str = ""
    suffix: str = ""
    oversize: bool = False
    continues: str | None = None  # "table" or "code" when the chunk starts inside one

    @property
    def text(self) -> str:
        """The chunk as the agent reads it."""
        return self.prefix + self.body + self.suffix


def _continues(first: Piece, at_start: bool) -> str | None:
    if at_start or not first.prefix:
        return None
    return "table" if first.cut == ROW else "code" if first.cut == CODE_LINE else None


def split(markdown: str, max_chars: int) -> list[Chunk]:
    """`markdown` in chunks of at most `max_chars` characters (a lone oversize unit excepted)."""
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    parts = pieces(markdown, max_chars)
    n = len(parts)
    offsets = [0, *accumulate(len(p.text) for p in parts)]
    chunks: list[Chunk] = []
    i = 0
    while i < n:
        prefix = parts[i].prefix if i > 0 and parts[i].cut else ""
        end = _end(parts, offsets, i, len(prefix), max_chars)
        suffix = parts[end].close if end < n else ""
        body = markdown[offsets[i] : offsets[end]]
        oversize = len(prefix) + len(body) + len(suffix) > max_chars
        chunks.append(Chunk(body, prefix, suffix, oversize, _continues(parts[i], i == 0)))
        i = end
    return chunks or [Chunk("")]


def _end(parts: list[Piece], offsets: list[int], i: int, head: int, max_chars: int) -> int:
    """Where the chunk starting at piece `i` (with `head` characters of prefix) ends."""
    n = len(parts)
    best: int | None = None
    best_score = (-1, -1)
    last_fit: int | None = None
    half = max_chars / 2
    for j in range(i + 1, n + 1):
        size = head + offsets[j] - offsets[i]
        if j == n:
            if size <= max_chars:
                return n
            break
        cut = parts[j].cut
        if not cut:
            if size > max_chars:
                break
            continue
        total = size + len(parts[j].close)
        if total > max_chars:
            if size > max_chars:
                break
            continue
        last_fit = j
        if total >= half and (cut, j) > best_score:
            best, best_score = j, (cut, j)
    if best is not None:
        return best
    if last_fit is not None:
        return last_fit
    # Nothing fits: the unit at `i` is bigger than a chunk and goes alone.
    return next((j for j in range(i + 1, n) if parts[j].cut), n)
