"""One chunk of a page's markdown as the agent gets it: the text, `chunk k of n`, and the next call."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NotRequired

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ..wire.errors import ErrorCode, TabPilotError
from .chunk import Chunk, split

DEFAULT_MAX_CHARS = 6_000


class NextChunk(TypedDict):
    what: str
    format: str
    chunk: int
    css_selector: NotRequired[str]
    max_chars: NotRequired[int]
    tab_id: NotRequired[int]


class MarkdownPage(TypedDict):
    url: str
    title: str
    chunk: int
    chunks: int
    markdown: str
    next: NotRequired[NextChunk]
    note: NotRequired[str]
    oversize: NotRequired[bool]
    truncated: NotRequired[bool]
    tab_id: NotRequired[int]


@lru_cache(maxsize=2)
def _chunks(html: str, max_chars: int) -> tuple[Chunk, ...]:
    # The page is read again for every chunk (it may have changed), but walking chunk 2, 3, ... of
    # an unchanged page skips conversion and chunking: the same HTML gives the same chunks.
    from .convert import to_markdown  # its converter is a native library: loaded when first needed

    return tuple(split(to_markdown(html), max_chars))


def markdown_chunk(
    content: dict[str, Any],
    *,
    chunk: int,
    max_chars: int,
    css_selector: str | None,
    tab_id: int | None,
) -> MarkdownPage:
    """Chunk `chunk` (1-based) of the markdown of `content` (the page's main_content result)."""
    chunks = _chunks(str(content.get("html") or ""), max_chars)
    n = len(chunks)
    if not 1 <= chunk <= n:
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS,
            f"chunk {chunk} does not exist: this page's markdown has {n} chunk{'s' * (n != 1)} "
            f"of at most {max_chars} characters",
            data={"chunks": n},
        )
    piece = chunks[chunk - 1]
    out: MarkdownPage = {
        "url": str(content.get("url", "")),
        "title": str(content.get("title", "")),
        "chunk": chunk,
        "chunks": n,
        "markdown": piece.text,
    }
    if chunk < n:
        nxt: NextChunk = {"what": "page", "format": "markdown", "chunk": chunk + 1}
        if css_selector:
            nxt["css_selector"] = css_selector
        if max_chars != DEFAULT_MAX_CHARS:
            nxt["max_chars"] = max_chars
        if tab_id is not None:
            nxt["tab_id"] = tab_id
        out["next"] = nxt
    notes: list[str] = []
    if piece.continues == "table":
        notes.append(f"continues a table from chunk {chunk - 1}; its header row is repeated")
    elif piece.continues == "code":
        notes.append(f"continues a code block from chunk {chunk - 1}; the fence is reopened")
    after = chunks[chunk].continues if chunk < n else None
    if after is not None:
        notes.append(f"the {'code block' if after == 'code' else after} goes on in chunk {chunk + 1}")
    if notes:
        out["note"] = "; ".join(notes)
    if piece.oversize:
        out["oversize"] = True
    if content.get("truncated"):
        out["truncated"] = True
    tab = content.get("tab_id")
    if isinstance(tab, int):
        out["tab_id"] = tab
    return out
