"""From one page of a paginated extract to the next, with the next page's rows in the same answer.

A same-origin next link (or GET form) is followed without rendering: the page agent fetches and parses
the next page (`fetch_extract`), once page 1 fetched again (from the HTTP cache when the page let it be
kept) read the rows and next link of the rendered page 1 (policy.py's call); else the control is
clicked (`paginate`). Fetched pages never move the tab: it stays on page 1. When the pager beside the
next link numbers its pages (`?page=3`, `/p/3`), the pages after the one being read are fetched ahead,
up to IN_FLIGHT at once (IN_FLIGHT_HTTP1 over HTTP/1, where the browser holds the site to 6 connections
and sends the next from its queue once one is free), never past the last page linked, and read in order
(numbered.py); otherwise the page agent reads up to LINKED_AHEAD pages ahead along the next links
(page/fetch_walk.js) and hands those it has read over with the page asked for: each is still a page of
its own here."""

from __future__ import annotations

import asyncio
import math
from typing import Literal

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Extract, FetchExtract, FieldPlan, Navigate, Paginate
from ...wire.replies import ExtractReply, FetchExtractReply, NextTarget, PaginateReply, decode_reply
from ...wire.scrape import PaginateOptions
from ..context import Context, obj
from ..urls import is_login_redirect
from . import numbered, pace, policy, redrawn, stop

# Pages fetched at once when a numbered pager tells their URLs (the one being read included).
IN_FLIGHT, IN_FLIGHT_HTTP1 = 6, 12
# Pages read ahead along next links (kept small: a host that dies re-reads those not yet journaled).
LINKED_AHEAD = 8

Mode = Literal["fetch", "navigate", "in_place"]


def check_redirect(before: str, landed: str) -> None:
    """Raise navigation_redirect when `landed` looks like a login page instead of the next page."""
    if before and is_login_redirect(before, landed):
        raise TabPilotError(
            ErrorCode.NAVIGATION_REDIRECT,
            f"the next page redirected to {landed}: probably a login page. Log in in that browser, then "
            "run the scrape again.",
            data={"redirect_url": landed},
        )


class Pager:
    """Moves a paginated extract from page to page; `advance` answers the next page's rows."""

    def __init__(
        self,
        ctx: Context,
        *,
        selector: str,
        fields: list[FieldPlan],
        options: PaginateOptions,
        timeout_ms: int,
        virtual: bool | None,
    ) -> None:
        self.ctx, self.selector, self.fields = ctx, selector, fields
        self.options, self.timeout_ms, self.virtual = options, timeout_ms, virtual
        self.mode: Mode | None = None
        self.redirected: str | None = None  # where the last next link was redirected to
        self.tab_url: str | None = None  # the tab's page while pages are fetched (it stays there)
        self._next = NextTarget()  # where the last fetched page's next control leads
        self._asked: list[str] = []  # URLs of the pages fetched, in order
        self._ahead: dict[str, asyncio.Task[FetchExtractReply]] = {}
        self._in_flight = IN_FLIGHT  # numbered pages fetched at once (more once a page said HTTP/1)
        self._read: list[tuple[str, FetchExtractReply]] = []  # pages read ahead, with the URL asked
        self._run: numbered.Run | None = None  # what the numbered pagers read so far tell
        self._pager_seen = False  # a numbered pager beside a next link (not only numbered URLs)
        self._per_page = 0  # rows on the last page read: how many pages a limit can still use
        self._named = False  # metadata.pagination_mode says how this walk went
        self._redraws: bool | None = None  # whether the last Next redrew in place (None: no click yet)
        self.stop: stop.Stop | None = None  # why the walk ended, once it has

    def _ended(self, end: stop.End, page: int) -> None:
        self.stop = stop.record(self.ctx, end.reason, page, end.detail, evidence=end.evidence, hint=end.hint)

    def pages_known(self) -> int | None:
        """The last page number the numbered pagers read so far link (a page count), when they tell."""
        run = self._run
        return run.last if run is not None and run.step == 1 and self._pager_seen else None

    def _pager_run(self) -> numbered.Run | None:
        """What the numbered pagers tell of the list's end (numbered URLs alone tell nothing of it)."""
        return self._run if self._pager_seen else None

    async def end_here(self, answer: ExtractReply, url: str | None) -> stop.End | None:
        """The end page `answer` shows, if it is the last (asked of the live page when the answer does
        not tell: a page clicked to). None: the list goes on, or nothing tells."""
        nxt = answer.next
        batch = self._batch
        if nxt is None and batch is not None and batch.waiting():
            return None
        if nxt is None and batch is not None and batch.end is not None:
            nxt = await self._probe() if batch.end == "missing" else NextTarget(end=batch.end)
        elif nxt is None and self.tab_url is None:
            nxt = await self._probe()
        return stop.next_end(nxt, self.options.next_selector, self._pager_run(), url)

    async def _probe(self) -> NextTarget | None:
        """The live page's next control, with its pager's position (one read, no rows)."""
        probe = Extract(
            id=0,
            selector=self.selector,
            fields=self.fields,
            limit=0,
            timeout_ms=self.timeout_ms,
            virtual=False,
            next_selector=self.options.next_selector,
        )
        try:
            return decode_reply(ExtractReply, await self.ctx.call(probe, self.timeout_ms)).next
        except TabPilotError:
            return None  # nothing tells: the stop stays short of proof

    def close(self) -> None:
        """Drop pages fetched ahead that will not be read."""
        for task in self._ahead.values():
            task.cancel()
        self._ahead.clear()
        self._read.clear()
        if self.tab_url is not None:
            self.ctx.state.url = self.tab_url  # where the tab is: fetched pages did not move it

    async def advance(self, answer: ExtractReply, pages: int, remaining: int | None) -> ExtractReply | None:
        """The next page's extract answer after `answer` (page `pages`), or None when the walk ended
        (its reason recorded)."""
        if self.mode != "fetch":
            await pace.before_next(self.ctx, self.options, self._redraws, self.timeout_ms)
        elif self.options.delay_ms:
            await asyncio.sleep(self.options.delay_ms / 1000)  # rate limit, not a wait
        if self.mode is None:
            self.mode = await self._decide(answer, remaining)
        if self.mode == "fetch":
            return await self._fetch_next(pages, remaining)
        return await self._click(pages, remaining)

    # ---- deciding on page 1 --------------------------------------------------------------------

    async def _decide(self, answer: ExtractReply, remaining: int | None) -> Mode:
        """Fetch when page 1 fetched reads what page 1 rendered shows (rows and next link), else click."""
        nxt = answer.next or NextTarget()
        here, target = answer.url, nxt.url
        if answer.virtual is not None or here is None or target is None or not nxt.same_origin:
            return "navigate"
        # The copy the tab rendered, when the HTTP cache kept it (a page that forbids storing it, or a
        # cache keyed otherwise for a load the browser started, is downloaded again).
        again = self._start(here, remaining, cache_first=True)
        self._run = numbered.learn(here, target, nxt.pager)
        self._per_page = len(answer.rows)
        # Page 2 and the pages after it, meanwhile: no time lost when the check passes (dropped if not).
        self._start(target, remaining, ahead=min(1, self._linked_ahead(target, 2, remaining)))
        self._pager_seen = bool(nxt.pager)
        self._fetch_ahead(target, 2, remaining, others=1)
        why = await self._compare(again, answer, here, target)
        if why is not None and policy.UNFETCHED not in why:
            # The cache may hold an older copy than the tab's (stored by an earlier scrape under the
            # key a page's own fetch uses): ask the server once before giving up on fetching.
            self._ahead.pop(here, None)
            why = await self._compare(self._start(here, remaining), answer, here, target)
        self.ctx.state.url, self._named = here, True
        if why is not None:
            self.close()
            self.ctx.state.meta["pagination_mode"] = "navigate"
            self.ctx.state.meta["pagination_note"] = f"pages were loaded in the tab: {why}"
            return "navigate"
        self.tab_url, self._asked, self._next = here, [here], nxt
        self.ctx.state.meta["pagination_mode"] = "fetch"
        return "fetch"

    async def _compare(
        self, again: asyncio.Task[FetchExtractReply], answer: ExtractReply, here: str, target: str
    ) -> str | None:
        """Why page 1 fetched (`again`) cannot stand for page 1 rendered (`answer`), or None."""
        fetched: policy.Copy | TabPilotError
        try:
            check = await again
            fetched = policy.Copy(check.rows, check.url, (check.next or NextTarget()).url)
        except TabPilotError as exc:
            fetched = exc
        return policy.mismatch(fetched, policy.Copy(answer.rows, here, target), "page 1")

    # ---- fetched pages ---------------------------------------------------------------------------

    async def resume(self, url: str, last: str, pages: int, remaining: int | None) -> ExtractReply | None:
        """Fetch on at `url` (after page `pages`, `last`) from the tab's page, as the run resumed did (it
        checked fetching on this very page); the page agent may still hold what it read ahead for it."""
        self.mode, self.tab_url, self._asked, self._named = "fetch", self.ctx.state.url, [last], True
        self._next = NextTarget(url=url, same_origin=True)
        self.ctx.state.meta["pagination_mode"] = "fetch"
        return await self._fetch_next(pages, remaining)

    async def _fetch(self, command: FetchExtract) -> FetchExtractReply:
        reply = decode_reply(FetchExtractReply, await self.ctx.call(command, self.timeout_ms))
        self._in_flight = IN_FLIGHT_HTTP1 if reply.http1 else self._in_flight
        return reply

    def _start(
        self, url: str, remaining: int | None, *, cache_first: bool = False, ahead: int = 0
    ) -> asyncio.Task[FetchExtractReply]:
        task = self._ahead.get(url)
        if task is None:
            command = FetchExtract(
                id=0,
                url=url,
                fields=self.fields,
                selector=self.selector,
                next_selector=self.options.next_selector,
                limit=remaining,
                timeout_ms=self.timeout_ms,
                cache_first=cache_first,
                ahead=ahead,
            )
            task = asyncio.ensure_future(self._fetch(command))
            # A page fetched ahead and never read must not log "exception never retrieved".
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            self._ahead[url] = task
        return task

    def _fetch_ahead(self, url: str, pages: int, remaining: int | None, others: int = 0) -> None:
        """Start fetching the pages after `url` (page `pages`, being read) that a numbered pager linked,
        so that up to IN_FLIGHT(_HTTP1) are on their way (`others`: fetches under way besides these)."""
        if self.options.delay_ms or self._run is None:
            return  # a pause between pages is for the server: one page at a time
        for later in self._run.ahead(url, self._room(self._in_flight - others - 1, pages, remaining)):
            self._start(later, remaining)

    def _room(self, most: int, page: int, remaining: int | None) -> int:
        """Pages after page `page` worth fetching now: up to `most`, none past max_pages, nor past what
        `remaining` rows can use if pages hold as many rows as the last one read."""
        room = min(most, self.options.max_pages - page)
        if remaining is not None and self._per_page:
            room = min(room, math.ceil(remaining / self._per_page) - 1)
        return max(0, room)

    def _linked_ahead(self, url: str, page: int, remaining: int | None) -> int:
        """Pages after `url` (page `page`) the page agent may read along next links: none with a pause
        between pages, nor where a numbered pager tells the next URL (those are fetched from here)."""
        if self.options.delay_ms or (self._run is not None and self._run.ahead(url, 1)):
            return 0
        return self._room(LINKED_AHEAD, page, remaining)

    async def _fetch_next(self, pages: int, remaining: int | None) -> ExtractReply | None:
        nxt = self._next
        sel = self.options.next_selector
        end = stop.next_end(nxt, sel, self._pager_run(), self._asked[-1] if self._asked else None)
        if end is not None:
            self._ended(end, pages)
            return None
        url = nxt.url
        if url is None or not nxt.same_origin:
            # A control only a script can follow, or a link to another origin: as a person would, from
            # the last page read, in the tab (site scope and redirects are then watched as always).
            return await self._to_tab(pages, remaining)
        self._asked.append(url)
        value = self._read_ahead(url)
        if value is None:
            task = self._start(url, remaining, ahead=self._linked_ahead(url, pages + 1, remaining))
            self._fetch_ahead(url, pages + 1, remaining)
            try:
                value = await task
            except TabPilotError as exc:
                return await self._fetch_failed(exc, url, pages, remaining)
            finally:
                self._ahead.pop(url, None)
                self.ctx.state.url = self.tab_url
            self._keep_later(value)
        landed = value.url
        self.redirected = None
        if value.redirected and landed is not None:
            self.redirected = landed
            if is_login_redirect(url, landed):
                self.stop = stop.record(
                    self.ctx, "redirected", pages + 1, f"the next page redirected to {landed}"
                )
            check_redirect(url, landed)
        self._next = nxt = value.next or NextTarget()
        self._pager_seen = self._pager_seen or bool(nxt.pager)
        if nxt.url is not None:
            self._run = numbered.merge(self._run, numbered.learn(landed or url, nxt.url, nxt.pager))
        self._per_page = len(value.rows)
        return value

    def _keep_later(self, value: FetchExtractReply) -> None:
        """Keep the pages read ahead that came with `value`, each under the URL of the link to it."""
        asked = (value.next or NextTarget()).url
        for page in value.later:
            if asked is not None:
                self._read.append((asked, page))
                asked = (page.next or NextTarget()).url
        value.later = []

    def _read_ahead(self, url: str) -> FetchExtractReply | None:
        """The page at `url` when it came with an earlier answer (the pages kept after it stay)."""
        found = self._read.pop(0)[1] if self._read and self._read[0][0] == url else None
        if found is None:
            self._read.clear()
        return found

    async def _fetch_failed(
        self, exc: TabPilotError, url: str, pages: int, remaining: int | None
    ) -> ExtractReply | None:
        data = obj(exc.data)
        if exc.code == ErrorCode.HTTP_ERROR:
            detail = f"{url} answered HTTP {data.get('status')}"
            h = stop.hint("options.paginate.delay_ms", 1000, "the server refused the next page: slow down")
            self.stop = stop.record(self.ctx, "http_error", pages + 1, detail, hint=h)
            return None
        if exc.code == ErrorCode.NOT_HTML:
            detail = (
                f"{url} is {data.get('type') or 'no HTML'}, not an HTML page: next_selector probably also "
                "matches a download or export link; make it match only the next-page control"
            )
            h = stop.hint("options.paginate.next_selector", None, "make it match only the next-page control")
            self.stop = stop.record(self.ctx, "not_html", pages + 1, detail, hint=h)
            return None
        if exc.code in policy.RENDER_INSTEAD:
            # Its scripts could make secrets (policy.py), or it could not be fetched: the tab clicks its
            # way there and reads it rendered.
            self._asked.pop()
            return await self._to_tab(pages, remaining)
        raise exc

    async def _to_tab(self, pages: int, remaining: int | None) -> ExtractReply | None:
        """Go on in the tab: load the last page read (unless it is the tab's), then click its next control."""
        self.close()
        last, self.tab_url = self._asked[-1], None
        if last != self.ctx.state.url:
            await self.ctx.call(Navigate(id=0, url=last, timeout_ms=self.timeout_ms), self.timeout_ms)
        self.mode = "navigate"
        self.ctx.state.meta["pagination_mode"] = "navigate"
        self.ctx.state.meta["pagination_note"] = f"pages after page {pages} were loaded in the tab"
        return await self._click(pages, remaining)

    # ---- clicked pages ---------------------------------------------------------------------------

    _batch: redrawn.Batch | None = None  # pages redrawn in place that came with the last click

    async def _click(self, pages: int, remaining: int | None) -> ExtractReply | None:
        ctx, t, sel = self.ctx, self.timeout_ms, self.options.next_selector
        before = ctx.state.url or ""
        batch = self._batch = self._batch or redrawn.Batch()
        moved = batch.pop()
        if moved is None:
            command = Paginate(
                id=0,
                next_selector=sel,
                row_selector=self.selector,
                timeout_ms=t,
                fields=self.fields,
                limit=remaining,
                virtual=self.virtual,
                pages=redrawn.pages_to_ask(self.options, pages),
            )
            moved = batch.keep(decode_reply(PaginateReply, await ctx.call(command, t)))
        self._redraws = moved.outcome == "redrawn"
        if moved.outcome == "end":
            await self._click_end(str(moved.reason), pages)
            return None
        # What the first click did names the walk (unless a failed fetch check already did).
        if not self._named:
            ctx.state.meta["pagination_mode"] = "in_place" if moved.outcome == "redrawn" else "navigate"
            self._named = True
        landed = moved.url
        self.redirected = None
        if moved.reason == "redirected" and landed is not None:
            self.redirected = landed
            if before and is_login_redirect(before, landed):
                self.stop = stop.record(ctx, "redirected", pages + 1, f"the next page redirected to {landed}")
            check_redirect(before, landed)
        if moved.page is not None:
            ctx.state.url = landed or ctx.state.url
            return moved.page
        # An extension that does not read the rows with the click: one more trip.
        extract = Extract(
            id=0,
            selector=self.selector,
            fields=self.fields,
            limit=remaining,
            timeout_ms=t,
            virtual=self.virtual,
        )
        return decode_reply(ExtractReply, await ctx.call(extract, t))

    async def _click_end(self, reason: str, pages: int) -> None:
        """Record the end a click met: a missing control is checked against the live page's pager."""
        sel = self.options.next_selector
        why = stop.END_REASONS.get(reason, "no_next")
        if why == "unchanged":
            h = stop.hint("options.paginate.next_selector", None, "clicking it changed nothing")
            self.stop = stop.record(self.ctx, why, pages, stop.end_detail(why, sel), hint=h)
            return
        nxt = await self._probe() if why == "no_next" else None
        if nxt is None or nxt.end is None:
            nxt = NextTarget(end="disabled" if why == "next_disabled" else "missing")
        end = stop.next_end(nxt, sel)
        assert end is not None
        self._ended(end, pages)
