"""Pages redrawn in place, several to one `paginate` command.

A table whose Next redraws it in place (DataTables, Dash, AG Grid-like) is clicked through in the page
itself: one command asks for up to `pages` clicks and the page answers each new page's rows, read the
moment its redraw completes (extension/page/redraw.js). The pager hands those pages to the extract
loop one at a time, in order, as if each had come with a click of its own, so `max_pages`, `limit`,
`where`, redaction and the stop reasons count them as always. With `paginate.delay_ms` (a pause
between pages), each command clicks once.

A run cancelled while a command is clicking keeps the pages already handed on; the page may have been
clicked through at most that one command's pages further than the rows returned.
"""

from __future__ import annotations

from collections import deque

from ...wire.replies import ExtractReply, PaginateReply
from ...wire.scrape import PaginateOptions
from .stop import END_REASONS


def pages_to_ask(options: PaginateOptions, pages: int) -> int:
    """How many Next clicks the next command may make, `pages` pages having been read."""
    if options.delay_ms:
        return 1  # the pause goes between pages, so one page a command
    return max(1, options.max_pages - pages)


class Batch:
    """The pages one command brought after its first, waiting for the extract loop."""

    def __init__(self) -> None:
        self._waiting: deque[ExtractReply] = deque()
        self._end: str | None = None  # the list's end, seen after the last page waiting
        self._url: str | None = None

    def keep(self, moved: PaginateReply) -> PaginateReply:
        """Keep the pages after `moved.page` (and how the list ended after them); `moved` as it is."""
        self._waiting.extend(moved.more)
        self._end = moved.end if moved.end in END_REASONS else None
        self._url = moved.url
        return moved

    def waiting(self) -> bool:
        """Whether pages kept are still to be handed on (the live page is ahead of the one read)."""
        return bool(self._waiting)

    @property
    def end(self) -> str | None:
        """How the list ended after the pages kept (missing | disabled), when the page saw it."""
        return self._end

    def pop(self) -> PaginateReply | None:
        """The next page kept, as the answer of a click that redrew it; the list's end once they are
        all gone; None when a command must click."""
        if self._waiting:
            page = self._waiting.popleft()
            return PaginateReply(outcome="redrawn", url=page.url or self._url, page=page)
        if self._end is not None:
            end, self._end = self._end, None
            return PaginateReply(outcome="end", reason=end, url=self._url)
        return None
