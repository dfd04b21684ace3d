"""The markdown chunker: nothing lost, no table row, list item, heading or code block cut, table headers
repeated, code fences closed and reopened, every chunk within budget unless one unit is bigger."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from tabpilot.markdown.chunk import Chunk, split

WORDS = ["alpha", "beta", "gamma", "delta", "tab", "page", "mark", "down", "chunk", "row", "x_y", "*z*"]
CODE_LINES = ["# not a heading", "| not | a row |", "- not an item", "", "    indented()", "x = 1", "1. no"]


@dataclass
class Doc:
    """A generated markdown text and where its units are."""

    parts: list[str] = field(default_factory=list)
    size: int = 0
    atomic: list[tuple[int, int]] = field(default_factory=list)  # lines a chunk may never cut
    tables: list[tuple[str, list[int]]] = field(default_factory=list)  # header, body row starts
    code: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, opener

    def add(self, text: str) -> int:
        start = self.size
        self.parts.append(text)
        self.size += len(text)
        return start

    @property
    def text(self) -> str:
        return "".join(self.parts)


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    doc = Doc()
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["heading", "paragraph", "table", "list", "code", "item_code"]))
        if doc.size:
            doc.add("\n")
        if kind == "heading":
            line = "#" * draw(st.integers(1, 6)) + " " + draw(words) + "\n"
            start = doc.add(line)
            doc.atomic.append((start, start + len(line)))
        elif kind == "paragraph":
            sentences = draw(st.lists(words, min_size=1, max_size=8))
            doc.add(" ".join(s.capitalize() + "." for s in sentences) + "\n")
        elif kind == "table":
            cols = draw(st.integers(1, 4))
            header = "| " + " | ".join(f"h{c}" for c in range(cols)) + " |\n"
            header += "| " + " | ".join("---" for _ in range(cols)) + " |\n"
            doc.add(header)
            starts = []
            for _ in range(draw(st.integers(1, 40))):
                row = "| " + " | ".join(draw(words) for _ in range(cols)) + " |\n"
                start = doc.add(row)
                starts.append(start)
                doc.atomic.append((start, start + len(row)))
            doc.tables.append((header, starts))
        elif kind == "list":
            depth = 0
            for _ in range(draw(st.integers(1, 10))):
                depth = draw(st.integers(0, min(depth + 1, 2)))
                marker = draw(st.sampled_from(["-", "1."]))
                line = "  " * depth + marker + " " + draw(words) + "\n"
                start = doc.add(line)
                doc.atomic.append((start, start + len(line)))
        elif kind == "item_code":
            # A list item holding a code block, indented under it as the converter writes it.
            item = "- " + draw(words) + "\n\n"
            start = doc.add(item)
            body = draw(st.lists(st.sampled_from(CODE_LINES[1:]) | words, min_size=1, max_size=20))
            block = "  ```js\n" + "".join(f"  {line}\n" if line else "\n" for line in body) + "  ```\n"
            code_start = doc.add(block)
            doc.code.append((code_start, code_start + len(block), "  ```js\n"))
            for line in block.splitlines(keepends=True):
                doc.atomic.append((code_start, code_start + len(line)))
                code_start += len(line)
            doc.atomic.append((start, start + len(item) - 1))
        else:
            opener = "```" + draw(st.sampled_from(["", "python", "js"])) + "\n"
            body = draw(st.lists(st.sampled_from(CODE_LINES) | words, min_size=1, max_size=30))
            block = opener + "".join(line + "\n" for line in body) + "```\n"
            start = doc.add(block)
            doc.code.append((start, start + len(block), opener))
            for line in block.splitlines(keepends=True):
                doc.atomic.append((start, start + len(line)))
                start += len(line)
    return doc


def _boundaries(chunks: list[Chunk]) -> list[int]:
    out, at = [], 0
    for c in chunks[:-1]:
        at += len(c.body)
        out.append(at)
    return out


def _chunk_at(chunks: list[Chunk], offset: int) -> tuple[Chunk, Chunk]:
    at = 0
    for before, after in itertools.pairwise(chunks):
        at += len(before.body)
        if at == offset:
            return before, after
    raise AssertionError(f"no boundary at {offset}")


def _content_lines(body: str) -> list[str]:
    """Lines that start a unit: not blank, not a table's header and separator, not a line indented under
    a list item (its content, code included), and a fenced code block counts once (its opening fence)."""
    lines: list[str] = []
    in_item = False
    in_fence = False
    for line in body.splitlines():
        fence = line.lstrip().startswith("```")
        if in_fence:
            in_fence = not fence
            continue
        if not line.strip():
            continue
        if in_item and line.startswith(" "):
            in_fence = fence
            continue
        in_item = line.startswith("- ")
        in_fence = fence
        lines.append(line)
    if len(lines) > 2 and lines[1].startswith("| ---"):
        lines = lines[2:]
    return lines


def _fences(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.lstrip().startswith("```"))


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(40, 700))
def test_chunks_lose_nothing_and_cut_no_unit(doc: Doc, max_chars: int) -> None:
    text = doc.text
    chunks = split(text, max_chars)
    assert "".join(c.body for c in chunks) == text
    assert all(c.body for c in chunks)
    for c in chunks:
        if c.oversize:
            assert len(c.text) > max_chars
            assert len(_content_lines(c.text)) == 1, "an oversize chunk holds one unit"
        else:
            assert len(c.text) <= max_chars
        assert _fences(c.text) % 2 == 0, "every chunk's code fences are closed"
    cuts = _boundaries(chunks)
    for b in cuts:
        assert not any(s < b < e for s, e in doc.atomic), f"cut inside a unit at {b}"
    for start, end, opener in doc.code:
        inside = [b for b in cuts if start < b < end]
        assert not inside or end - start > max_chars, "a code block that fits is never cut"
        for b in inside:
            before, after = _chunk_at(chunks, b)
            assert before.suffix == opener[: opener.index("`")] + "```\n"
            assert after.prefix == opener and after.continues == "code"
    for header, starts in doc.tables:
        for b in cuts:
            if b in starts[1:]:
                _, after = _chunk_at(chunks, b)
                assert after.prefix == header and after.text.startswith(header)
                assert after.continues == "table"
        assert starts[0] not in cuts, "a header never ends a chunk"


@settings(max_examples=100, deadline=None)
@given(documents(), st.integers(40, 700))
def test_the_split_is_stable(doc: Doc, max_chars: int) -> None:
    assert split(doc.text, max_chars) == split(doc.text, max_chars)


def test_a_chunk_prefers_to_end_before_a_heading() -> None:
    para = "Some words here. " * 5 + "\n"
    text = "# One\n\n" + para + "\n## Two\n\n" + para + "\n" + para
    chunks = split(text, 180)
    assert chunks[1].body.startswith("## Two")


def test_a_long_table_repeats_its_header() -> None:
    header = "| name | value |\n| --- | --- |\n"
    rows = "".join(f"| n{i} | v{i} |\n" for i in range(60))
    chunks = split("# T\n\n" + header + rows, 200)
    assert len(chunks) > 3
    for c in chunks[1:]:
        assert c.text.startswith(header) and c.continues == "table"
        assert c.body.startswith("| n")
    assert "".join(c.body for c in chunks) == "# T\n\n" + header + rows


def test_a_row_bigger_than_a_chunk_goes_alone_and_is_flagged() -> None:
    header = "| a |\n| --- |\n"
    text = header + "| short |\n| " + "w " * 200 + "|\n| after |\n"
    chunks = split(text, 100)
    [big] = [c for c in chunks if c.oversize]
    assert big.body.startswith("| w w") and big.prefix == header
    assert "".join(c.body for c in chunks) == text


def test_a_long_paragraph_is_cut_at_sentences() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(40)) + "\n"
    chunks = split(text, 200)
    assert len(chunks) > 1
    for c in chunks[:-1]:
        assert c.body.rstrip().endswith(".")
        assert len(c.text) <= 200


def test_empty_markdown_is_one_empty_chunk() -> None:
    assert split("", 100) == [Chunk("")]
