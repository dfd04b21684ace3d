"""Paging: every way an extract reads more than the first screen of rows, behind one `Walk`.

The extract step builds a Walk and reads the pages it yields, in order, each as the page agent's
`ExtractReply`; after filtering a page it tells the walk how many rows it kept so far (`kept`), since a
`limit` counts kept rows and only the step knows them. How the next page comes is the walk's business:
a next link fetched or clicked (links.py, numbered.py, redrawn.py, pace.py), a feed scrolled first
(feed.py), a virtualised grid read through (grid.py). Why a walk stopped is stop.py's.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from ...wire.messages import Extract, FieldPlan
from ...wire.replies import ExtractReply, decode_reply
from ...wire.scrape import PaginateOptions, ScrollOptions
from ..context import Context
from . import feed, grid, more, stop
from .links import Pager


class Walk:
    """The pages of one extract: `pages()` yields them; `stop` says why the walk ended."""

    def __init__(
        self,
        ctx: Context,
        *,
        selector: str,
        fields: list[FieldPlan],
        paginate: PaginateOptions | None,
        scroll: ScrollOptions | None,
        virtual: bool | None,
        limit: int | None,
        timeout_ms: int,
        filtered: bool = False,
        key_fields: list[str] | None = None,
        first_page: int = 1,
        fetch_from: tuple[str, str] | None = None,
    ) -> None:
        self.ctx, self.selector, self.fields = ctx, selector, fields
        self.paginate, self.scroll, self.virtual = paginate, scroll, virtual
        self.limit, self.timeout_ms, self.key_fields = limit, timeout_ms, key_fields
        # Rows a filter drops are counted by the step: the page cannot know how many of its rows pass.
        self.filtered = filtered
        self.count = first_page - 1  # pages yielded (a resumed walk starts at the page it had reached)
        self._kept = 0
        self._handed = False
        self._last_linked: tuple[int | None, int] = (None, 0)  # the pager's last page, first seen at
        self._pager = None if paginate is None else self._make_pager(paginate)
        # Resumed where pages were fetched from the tab's page: (the next page's URL, the last one read).
        self._fetch_from = fetch_from
        self.stop: stop.Stop | None = None  # why the walk ended (None: a plain one-page extract)
        if self._pager is not None:
            ctx.state.total_of = self.total

    def _make_pager(self, paginate: PaginateOptions) -> Pager:
        return Pager(
            self.ctx,
            selector=self.selector,
            fields=self.fields,
            options=paginate,
            timeout_ms=self.timeout_ms,
            virtual=self.virtual,
        )

    @property
    def tab(self) -> str | None:
        """The tab's page while this walk reads pages by fetching them from it (None: it does not)."""
        return None if self._pager is None else self._pager.tab_url

    def kept(self, total_rows_kept: int) -> None:
        """The rows the step kept so far, this page's included."""
        self._kept = total_rows_kept

    def _remaining(self) -> int | None:
        return None if self.limit is None or self.filtered else self.limit - self._kept

    def _command(self) -> Extract:
        # Where the next control leads: a link may be fetched instead of clicked (links.py).
        nxt = None if self._pager is None or self.scroll is not None else self._pager.options.next_selector
        return Extract(
            id=0,
            selector=self.selector,
            fields=self.fields,
            limit=self._remaining(),
            timeout_ms=self.timeout_ms,
            virtual=self.virtual,
            next_selector=nxt,
            key_fields=self.key_fields,  # a grid's rows without an index are told apart by these
        )

    async def pages(self) -> AsyncGenerator[ExtractReply, None]:
        """Each page's rows, in order, until the walk ends (its reason then in `stop`)."""
        ctx, t = self.ctx, self.timeout_ms
        try:
            if self.scroll is not None:
                self.stop = await feed.load(ctx, self.selector, self.scroll, self.limit, t)
            answer: ExtractReply | None = None  # the next page's rows, when they came with the move to it
            if self._fetch_from is not None and self._pager is not None:
                answer = await self._pager.resume(*self._fetch_from, self.count, self._remaining())
                if answer is None:
                    self.stop = self._pager.stop
                    return
            while True:
                command = self._command()
                if answer is None:
                    answer = decode_reply(ExtractReply, await ctx.call(command, t))
                answer = await grid.finish(ctx, command, answer, t)
                kind = stop.not_html(answer.type) if self.count else None
                if kind is not None:
                    where = answer.url or "the next page"
                    self.stop = stop.record(
                        ctx,
                        "not_html",
                        self.count + 1,
                        f"{where} is {kind}, not an HTML page: next_selector probably also matches a "
                        "download or export link; make it match only the next-page control",
                        hint=stop.hint("options.paginate.next_selector", None, "match only the next control"),
                    )
                    return
                if self._pager is None and answer.virtual is not None:
                    self.stop = grid.end(ctx, answer.virtual, self.limit, t)
                self._handed = True  # the step reads this page now: it counts as read
                yield answer
                self._handed = False
                self.count += 1
                pager = self._pager
                if pager is None:
                    # Rows cut at the limit asked for: that the list goes on is not news.
                    if self.stop is None and (self.limit is None or self._kept < self.limit):
                        more.note(ctx, answer.more)
                    return
                if await self._ended(pager, answer):
                    return
                answer = await pager.advance(answer, self.count, self._remaining())
                if answer is None:
                    self.stop = pager.stop
                    return
        finally:
            self.close()

    async def _ended(self, pager: Pager, answer: ExtractReply) -> bool:
        """Whether the walk ends after this page; if so, why (in `stop`)."""
        ctx, page, options = self.ctx, self.count, pager.options
        if not answer.rows:
            if pager.redirected is not None:
                detail = (
                    f"the next page redirected to {pager.redirected}, which has no rows matching the selector"
                )
                h = stop.hint("options.paginate.next_selector", None, "the next control led off the list")
                self.stop = stop.record(ctx, "redirected", page, detail, hint=h)
            else:
                h = stop.hint(
                    "selector", None, f"page {page} matched no rows: if the list goes on, its rows differ"
                )
                detail = "this page has no rows matching the selector"
                self.stop = stop.record(ctx, "no_rows", page, detail, hint=h)
            return True
        reason: stop.Reason
        if page >= options.max_pages:
            reason, why = "max_pages", f"paginate.max_pages ({options.max_pages}) reached"
        elif self.limit is not None and self._kept >= self.limit:
            reason, why = "limit", f"options.limit ({self.limit}) rows collected"
        else:
            return False
        end = await pager.end_here(answer, answer.url)
        if end is not None and end.evidence is not None:
            self.stop = stop.record(ctx, reason, page, why, evidence=end.evidence)
        else:
            known = pager.pages_known()
            self.stop = stop.short(ctx, reason, page, self.limit, options.max_pages, known)
        return True

    def total(self) -> tuple[str, int, int] | None:
        """(why, the pages this walk will have read at its end, the pages read so far): the last page the
        numbered pagers link, when they tell one before max_pages, else paginate.max_pages (at most).
        A pager's last page counts once two pages showed it and it lies past the next page: a Previous
        and Next pair links only the next page, and a pager showing a window of pages moves it on."""
        if self._pager is None:
            return None
        cap = self._pager.options.max_pages
        known = self._pager.pages_known()
        read = self.count + self._handed
        if known != self._last_linked[0]:
            self._last_linked = (known, read)
        if known is not None and read + 1 < known < cap and read > self._last_linked[1]:
            return "last_numbered_page", known, read
        return "max_pages", cap, read

    def close(self) -> None:
        """Drop pages fetched ahead that will not be read (safe to call more than once)."""
        if self._pager is not None:
            self._pager.close()
        if self.ctx.state.total_of == self.total:
            self.ctx.state.total_of = None
