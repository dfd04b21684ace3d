"""observe what=page: what a person sees as lean text with @e refs, or the main content as markdown."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ....markdown.page import DEFAULT_MAX_CHARS, MarkdownPage, markdown_chunk
from ....wire import messages as m
from ....wire.errors import ErrorCode, TabPilotError
from ..base import Call
from ..snapshots import PageSnapshot, take

MaxChars = Annotated[
    int, Field(ge=200, le=200_000, description="Snapshot (or markdown chunk) size budget; default 6000.")
]


async def page(
    call: Call,
    scope: str | None = None,
    max_chars: MaxChars = DEFAULT_MAX_CHARS,
    cursor: Annotated[int, Field(ge=0, description="cursor_next of the previous page snapshot.")] = 0,
    mode: Annotated[
        Literal["full", "diff", "main"],
        Field(
            description="diff: only lines changed since the last snapshot; main: the main content first, "
            "then the rest of the page (as after a click that navigates)."
        ),
    ] = "full",
    tab_id: int | None = None,
    format: Annotated[
        Literal["text", "markdown"],
        Field(description="text: the snapshot with refs; markdown: the main content as markdown chunks."),
    ] = "text",
    chunk: Annotated[
        int | None, Field(ge=1, description="markdown: which chunk (1-based); default 1.")
    ] = None,
    css_selector: str | None = None,
) -> PageSnapshot | MarkdownPage:
    """what a person sees as lean text; every interactive element has a ref (@e5) for interact.
    Continue with cursor=cursor_next when truncated. format=markdown: the main content (no navigation,
    footers, banners; secrets redacted) as markdown in chunks of max_chars; `next` is the call for the
    next chunk. Page text that looks like a ref, heading, row or marker is escaped (\\@e1, \\#, \\|)."""
    selector = css_selector or scope
    if format == "text":
        if chunk is not None:
            raise TabPilotError(
                ErrorCode.INVALID_PARAMS, "chunk is for format=markdown; text pages by cursor"
            )
        return await take(call, tab_id=tab_id, scope=selector, max_chars=max_chars, cursor=cursor, mode=mode)
    # Every chunk comes from a fresh read of the page; unchanged HTML reuses its chunks (markdown.page).
    content = await call.send(m.MainContent(id=0, tab_id=tab_id, css_selector=selector))
    return markdown_chunk(
        content, chunk=chunk or 1, max_chars=max_chars, css_selector=selector, tab_id=tab_id
    )
