"""Detail pages fetched several to a command (`fetch_details`), for `follow`.

Each fetched detail page was a command of its own: a script injection in the browser, a message each
way on the native pipe and a dispatch in the worker, more than a small page's own reading costs on a
fast site. So the pages whose places open together are asked for together: a page asked for waits
while more are asked for in the turns of the loop right after it (the others woken by the same places
given back), and goes with them as soon as a turn brings none, or as many are waiting as one command may
carry (`most()`: follow gives a command as many pages as the site's places, so that another command's
pages wait in the page while one answer travels back). No clock is involved: a page alone leaves at
once.

With `places` (follow's pace), every command of the run shares that many places at the site, held by
the page agent (page/places.js): a page's request waits there for one and gives it back once its body
has come, so more pages can be asked for than the site is to get at once (follow asks for twice as
many: engine/inflight.py's depth) and the site gets the next one while a page is parsed and its answer
travels back. A page alone then goes as a `fetch_details` of one, so that every request of the run
counts against the places, a page left out of a big answer too (the page never leaves out a page asked
for alone); its read says how long its request took at the site (`ms`), which is what the pace learns
from.

Each page keeps its own answer: its read, or its failure as `fetch_extract` would have raised it (the
caller retries a transient one, as before). An extension without `fetch_details` gets each page
alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.messages import FetchDetails, FetchExtract
from ..wire.replies import FetchDetailsReply, FetchExtractReply

BATCH_MOST = 16  # pages one command asks for at most

Call = Callable[[FetchDetails | FetchExtract], Awaitable[Any]]
# A page's read, and how long its request took at the site in seconds (None: not measured there).
Fetched = tuple[FetchExtractReply, float | None]


class Batches:
    """Gathers `fetch(command)`s (FetchExtract commands that differ in their URL alone) into
    `fetch_details` commands sent with `call`."""

    def __init__(self, call: Call, decode: Callable[[type[Any], Any], Any], pool: str | None = None) -> None:
        self.call, self.decode, self.pool = call, decode, pool
        self.waiting: list[tuple[FetchExtract, asyncio.Future[Fetched]]] = []
        self.asked = 0  # pages asked for so far (a turn that brought none sends the waiting ones)
        self.ticking = False
        self.together = True  # False once the extension said it has no fetch_details
        self.sending: set[asyncio.Task[None]] = set()
        self.most: Callable[[], int] = lambda: BATCH_MOST  # pages one command may carry now
        self.places: Callable[[], int] | None = None  # places at the site the run's pages share
        self.outstanding: Callable[[], int] = lambda: 0  # pages asked for, not answered (these too)
        self.shared = False  # the page answered that it holds the places

    def sharing(self) -> bool:
        """Whether the run's pages share places at the site held by the page: asked to, and the page
        has answered so (an extension that reads each page alone never does)."""
        return self.shared and self._asks_to_share()

    def _asks_to_share(self) -> bool:
        return self.together and self.places is not None and self.pool is not None

    async def fetch(self, command: FetchExtract) -> Fetched:
        """The page's read, and its request's time at the site; its failure raises."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Fetched] = loop.create_future()
        self.waiting.append((command, answer))
        self.asked += 1
        if len(self.waiting) >= min(BATCH_MOST, self.most()):
            self._send()
        elif not self.ticking:
            self.ticking = True
            loop.call_soon(self._turn, self.asked)
        return await answer

    def _turn(self, seen: int) -> None:
        if self.waiting and self.asked != seen:
            asyncio.get_running_loop().call_soon(self._turn, self.asked)  # more came: one more turn
            return
        self.ticking = False
        self._send()

    def _send(self) -> None:
        batch, self.waiting = self.waiting, []
        if batch:
            task = asyncio.ensure_future(self._answer(batch))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)

    async def close(self) -> None:
        """Call off what is still being sent (the run ended)."""
        for task in list(self.sending):
            task.cancel()

    async def _one(self, command: FetchExtract, answer: asyncio.Future[Fetched]) -> None:
        try:
            got = self.decode(FetchExtractReply, await self.call(command))
        except TabPilotError as exc:
            if not answer.done():
                answer.set_exception(exc)
            return
        if not answer.done():
            answer.set_result((got, None))

    async def _answer(self, batch: list[tuple[FetchExtract, asyncio.Future[Fetched]]]) -> None:
        live = [(c, a) for c, a in batch if not a.done()]  # a page whose run gave up is not asked for
        try:
            if self.together and (len(live) > 1 or (live and self._asks_to_share())):
                await self._together(live)
            else:
                await asyncio.gather(*(self._one(c, a) for c, a in live))
        except TabPilotError as exc:  # the command failed as a whole: so did each of its pages
            for _, a in live:
                if not a.done():
                    a.set_exception(exc)
        except BaseException:
            for _, a in live:
                a.cancel()
            raise

    async def _together(self, live: list[tuple[FetchExtract, asyncio.Future[Fetched]]]) -> None:
        first = live[0][0]
        places = self.places() if self.places is not None and self._asks_to_share() else None
        shared = places is not None
        command = FetchDetails(
            id=0,
            urls=[c.url for c, _ in live],
            fields=first.fields,
            selector=first.selector,
            limit=first.limit,
            # Sharing places, a page waits its turn behind the pages asked for before it, each a
            # page's time at most per place: room for that.
            timeout_ms=first.timeout_ms * (1 + -(-self.outstanding() // places))
            if places
            else first.timeout_ms,
            pool=self.pool if shared else None,
            in_flight=places,
            fetch_ms=first.timeout_ms if shared else None,
        )
        try:
            reply: FetchDetailsReply = self.decode(FetchDetailsReply, await self.call(command))
        except TabPilotError as exc:
            if exc.code != ErrorCode.UNKNOWN_COMMAND:
                raise
            self.together = False  # an extension without fetch_details: every page alone from now on
            await asyncio.gather(*(self._one(c, a) for c, a in live))
            return
        # A page that took a place says how long its request took: the page holds the places.
        self.shared = self.shared or any(p.ok is not None and p.ok.ms is not None for p in reply.pages)
        alone: list[tuple[FetchExtract, asyncio.Future[Fetched]]] = []
        for i, (c, a) in enumerate(live):
            page = reply.pages[i] if i < len(reply.pages) else None
            if a.done():
                continue
            if page is not None and page.ok is not None:
                a.set_result((page.ok, None if page.ok.ms is None else page.ok.ms / 1000))
            elif page is not None and page.error is not None and not page.deferred:
                e = page.error
                a.set_exception(TabPilotError(e.code or ErrorCode.SCRIPT_ERROR, e.message, data=e.data))
            else:
                alone.append((c, a))
        # Left out of a big answer: asked for again in a command of its own, which shares the places
        # (a page missing from a command of one is read by fetch_extract instead: no loop).
        again = len(live) > 1 and self._asks_to_share()
        await asyncio.gather(*(self._together([p]) if again else self._one(*p) for p in alone))
