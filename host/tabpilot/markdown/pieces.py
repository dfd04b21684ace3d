"""Markdown cut into pieces, each saying how good a place the start of it is to begin a new chunk.

The pieces are exact slices of the text, in order, so joining them gives the text back. Lines are the
unit, and a paragraph line is cut further at sentence ends (and, for a sentence longer than a chunk,
at spaces). A piece whose `cut` is 0 can never begin a chunk: the rest of a table row, of a list item,
of a code block that fits in one chunk, the line under a heading's table header. A piece can need a
`prefix` when a chunk starts at it (the table header again, or the code fence reopened) and a `close`
at the end of the chunk before it (the code fence closed).
"""

from __future__ import annotations

import re
from typing import NamedTuple

# How good a boundary is, best first: headings (h1 best), blocks, table rows, list items, sentences.
HEADING = 100
BLOCK = 50
ROW = 40
ITEM = 30
SENTENCE = 20
CODE_LINE = 10
WORD = 5
BLANK = 1  # a blank line between blocks: only so a unit that just fits is not pushed over by it
NEVER = 0

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})([^`]*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s|$)")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+(?=\S)")
_SPACE = re.compile(r"\s+(?=\S)")


class Piece(NamedTuple):
    """One slice of the markdown and what beginning a chunk with it costs (a tuple: made by the
    thousand, it is cheaper than a dataclass)."""

    text: str
    cut: int = NEVER
    prefix: str = ""
    close: str = ""


def _closes(line: str, fence: str) -> bool:
    body = line.strip()
    return body.startswith(fence[0] * len(fence)) and not body.strip(fence[0])


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


class _Scanner:
    """One pass over the lines that tracks fences, tables and lists."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.out: list[Piece] = []

    def scan(self, text: str) -> list[Piece]:
        lines = text.splitlines(keepends=True)
        i = 0
        blank_before = True
        in_list = False
        blanks: list[str] = []
        while i < len(lines):
            line = lines[i]
            bare = line.rstrip("\r\n")
            if not bare.strip():
                blanks.append(line)
                blank_before = True
                i += 1
                continue
            indented = bare[:1] in (" ", "\t")
            continuation = in_list and (indented or not blank_before)
            # Blank lines inside a list item belong to it; between blocks they may begin a chunk.
            self.out.extend(Piece(b, NEVER if continuation else BLANK) for b in blanks)
            blanks.clear()
            fence = _FENCE.match(bare)
            heading = _HEADING.match(bare)
            if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
                i = self._fence(lines, i, fence.group(1), fence.group(2), NEVER if continuation else BLOCK)
            elif heading and not indented:
                self.out.append(Piece(line, HEADING + 7 - len(heading.group(1))))
                in_list = False
                i += 1
            elif _is_row(bare) and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]):
                i = self._table(lines, i, NEVER if continuation else BLOCK)
            elif item := _ITEM.match(bare):
                depth = len(item.group(1).expandtabs(4)) // 2
                self.out.append(Piece(line, max(ITEM - depth, SENTENCE + 1)))
                in_list = True
                i += 1
            elif continuation:
                self.out.append(Piece(line))
                i += 1
            else:
                in_list = False
                self._paragraph_line(line, BLOCK if blank_before else SENTENCE)
                i += 1
            blank_before = False
        self.out.extend(Piece(b, BLANK) for b in blanks)
        return self.out

    def _fence(self, lines: list[str], start: int, indent: str, fence: str, cut: int) -> int:
        end = start + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        last = min(end, len(lines) - 1)  # the closing fence line, or the last line when never closed
        block = lines[start : last + 1]
        self.out.append(Piece(block[0], cut))
        # A block that fits in a chunk is never cut; a longer one is cut between lines, each piece
        # fenced again so every chunk is valid markdown on its own.
        splittable = sum(map(len, block)) > self.max_chars
        opener = block[0] if block[0].endswith("\n") else block[0] + "\n"
        close = f"{indent}{fence}\n"
        for k, line in enumerate(block[1:], start=1):
            inner = splittable and k > 1 and (k < len(block) - 1 or end >= len(lines))
            if inner:
                self.out.append(Piece(line, CODE_LINE, prefix=opener, close=close))
            else:
                self.out.append(Piece(line))
        return last + 1

    def _table(self, lines: list[str], start: int, cut: int) -> int:
        header = lines[start] + lines[start + 1]
        if not header.endswith("\n"):
            header += "\n"
        self.out.append(Piece(lines[start], cut))
        self.out.append(Piece(lines[start + 1]))
        i = start + 2
        first = True
        while i < len(lines) and _is_row(lines[i]):
            # The first row stays with the header: a chunk never ends on a bare header.
            self.out.append(Piece(lines[i]) if first else Piece(lines[i], ROW, prefix=header))
            first = False
            i += 1
        return i

    def _paragraph_line(self, line: str, cut: int) -> None:
        start = 0
        cuts = [m.end() for m in _SENTENCE_END.finditer(line)]
        for k, end in enumerate([*cuts, len(line)]):
            self._sentence(line[start:end], cut if k == 0 else SENTENCE)
            start = end

    def _sentence(self, sentence: str, cut: int) -> None:
        if len(sentence) <= self.max_chars:
            self.out.append(Piece(sentence, cut))
            return
        start = 0
        for k, end in enumerate([*(m.end() for m in _SPACE.finditer(sentence)), len(sentence)]):
            if end > start:
                self.out.append(Piece(sentence[start:end], cut if k == 0 else WORD))
                start = end


def pieces(text: str, max_chars: int) -> list[Piece]:
    """The pieces of `text`; code blocks longer than `max_chars` become cuttable between lines."""
    return _Scanner(max_chars).scan(text)
