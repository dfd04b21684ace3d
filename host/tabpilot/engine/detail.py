"""Reading one detail page for `follow`: fetched and parsed in the list's page (`fetch_extract`, or
`fetch_details` for the pages whose places open together: engine/detail_batch.py; no rendering, no tab,
the page agent's own extract and redaction), or rendered in a background tab (`extract_tab`). Fetching
is decided once a run, on the first detail page, read both ways: it is used when the two read the same
(paging/policy.py, the rule paging follows too), and only for pages on the list's origin. A first page
whose served HTML holds nothing that runs or moves (no script element or handler, frame, noscript,
declarative shadow root or refresh; served as UTF-8 or ASCII: FetchExtractReply.inert) reads the same
rendered by construction, and is not rendered: the check's tab is a new renderer for the browser to
start and draw, the costliest read of the run on a fast site. A page whose scripts could make secrets
its HTML does not mark, or that could not be fetched, is rendered (policy.py: that rule holds per page),
but for one whose server dropped the connection on both tries (a third request would only load it more:
that is its row's error); a page redirected to another origin ends the run (`navigation_redirect`),
fetched or rendered. A later fetched page that does not read like a served page would (no root
`selector`, no `wait_for` element, or every field empty where the first page had values: its scripts may
draw them) is read again rendered, and `metadata.follow.rendered` counts those. A rendered page is read
once some field has shown up (or shortly before the timeout), until a page reads empty even so
(`metadata.follow.empty` counts those): from then on such pages are taken as they read.

The check does not hold the others back: while it renders, the pages after it are fetched already, from
two in flight beside it (its own place counts against the ceiling, not against the pace until the site
slows down) up as the site's answers allow (engine/inflight.py), each page's place given back once it
is fetched, not held until the check decides, and kept until it decides. What the check would refuse is
refused for each of them as well: fetch.js redacts what their HTML marks and refuses a page whose
scripts could make secrets (`secret_unmaskable`: rendered instead). Pages fetched for nothing when the
check chooses tabs are at most AHEAD_PER_SLOT × `concurrency`; one still being fetched then is called
off.

Background tabs are kept open and reused (at most `concurrency`, one per page in flight): loading a page
in an open tab costs far less than opening a tab. `close()` releases them, whatever happened; once the
check chooses fetching its tab is released at once, while the pages are fetched."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.messages import Command, ExtractTab, FetchDetails, FetchExtract, FieldPlan, ReleaseTabs
from ..wire.replies import ExtractTabReply, FieldWarning, Reply, decode_reply
from ..wire.scrape import Follow
from . import inflight
from .context import Context
from .detail_batch import Batches
from .paging import policy

AHEAD_PER_SLOT = 4  # pages fetched ahead of the check, per place in flight (the most fetched for nothing)
_READY = "__ready"  # the probe field a fetch reads for `wait_for` (null: not in the served HTML)
_RELEASE_MS = 5_000
_R = TypeVar("_R", bound=Reply)


@dataclass
class Read:
    """One detail page as read: its row (at most one), warnings, where it landed."""

    rows: list[list[Any]] = field(default_factory=list[list[Any]])
    warnings: list[FieldWarning] = field(default_factory=list[FieldWarning])
    landed: str | None = None
    redirected: bool = False
    ready: bool = True  # fetched: the root and the wait_for element were in the served HTML
    inert: bool = False  # fetched: nothing on the page would read otherwise rendered (FetchExtractReply)
    site_s: float | None = None  # fetched among shared places: its request's time at the site


def same_origin(a: str, b: str | None) -> bool:
    """Whether two URLs share scheme, host and port."""
    if not b:
        return False
    x, y = urlsplit(a), urlsplit(b)
    return (x.scheme, x.hostname, x.port) == (y.scheme, y.hostname, y.port)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def empty(read: Read) -> bool:
    """Whether the page's row has no value in any field (a page whose scripts have not drawn it)."""
    return bool(read.rows) and all(v is None or v == [] for v in read.rows[0])


def _expect(plans: list[FieldPlan]) -> str | None:
    """A selector for 'some field has shown up' on a rendered page, from the fields' own selectors."""
    found = [p.selector for p in plans if p.selector and ":scope" not in p.selector]
    return ", ".join(dict.fromkeys(found)) or None


class DetailReader:
    """Reads the detail pages of one follow; `info["mode"]` is None until the first page decides it."""

    def __init__(
        self, ctx: Context, spec: Follow, plans: list[FieldPlan], timeout_ms: int, info: dict[str, Any]
    ) -> None:
        self.ctx, self.spec, self.plans, self.timeout_ms, self.info = ctx, spec, plans, timeout_ms, info
        self.pool = f"follow-{uuid.uuid4().hex[:12]}"
        self.idle: list[int] = []  # kept background tabs, free for the next page
        self.opened = False  # a tab of the pool may be open: close() has work
        self.letting_go: asyncio.Future[None] | None = None  # the check's tab, released once fetching won
        self.checking: asyncio.Event | None = None  # set when the check under way has ended
        self.ahead = 0  # pages fetched while a check ran
        self.ahead_max = AHEAD_PER_SLOT * spec.concurrency
        # Pages fetched together, sharing the run's places at the site (detail_batch.py).
        self.batches = Batches(self._raw, decode_reply, f"details-{uuid.uuid4().hex[:12]}")

    def checking_now(self) -> bool:
        """Whether the first page's check is under way (the mode undecided)."""
        return self.info.get("mode") is None and self.checking is not None

    async def fetch_ahead(self, url: str) -> Read | TabPilotError | None:
        """`url` fetched while the check runs, to be used once it has decided (its failure kept, not
        raised: it counts only if the pages are to be fetched); None when it may not be fetched ahead
        (no check under way, another origin, or enough fetched ahead already)."""
        if not self.checking_now() or not same_origin(url, self.ctx.state.url):
            return None
        if self.ahead >= self.ahead_max:
            return None
        self.ahead += 1
        checking = self.checking
        fetch = asyncio.ensure_future(self._fetch(url))
        if checking is not None:
            ended = asyncio.ensure_future(checking.wait())
            try:
                await asyncio.wait((fetch, ended), return_when=asyncio.FIRST_COMPLETED)
            except BaseException:
                fetch.cancel()
                raise
            finally:
                ended.cancel()
            if not fetch.done() and self.info.get("mode") == "tab":
                # Rendered anyway: a slow page is not waited for twice (the fetch is called off).
                fetch.cancel()
                with contextlib.suppress(asyncio.CancelledError, TabPilotError):
                    await fetch
                return None
        try:
            return await fetch
        except TabPilotError as exc:
            return exc

    async def settled(self) -> None:
        """Wait, holding no place, until the check under way has ended (decided, or its page failed)."""
        while self.checking_now():
            checking = self.checking
            if checking is not None:
                await checking.wait()

    async def read(self, url: str, ahead: Read | TabPilotError | None = None) -> Read | None:
        """The page as read (`ahead`: as fetched while the check ran); None when following stopped while
        it waited for the check. A failure of this page raises."""
        got = await self._read(url, ahead)
        if got is not None and empty(got):
            self.info["empty"] = self.info.get("empty", 0) + 1
        return got

    async def _read(self, url: str, ahead: Read | TabPilotError | None) -> Read | None:
        while self.info.get("mode") is None:
            checking = self.checking
            if checking is None:
                return await self._check(url, ahead)
            if ahead is None:
                ahead = await self.fetch_ahead(url)
                if ahead is not None:
                    continue
            await checking.wait()  # decided; or that page failed, and this one checks next
        if self.info.get("stopped"):
            return None
        mode = self.info.get("mode")
        # Until a page has read empty, an empty read is a page whose scripts have not drawn it yet.
        drawn = None if self.info.get("empty") else _expect(self.plans)
        if mode == "fetch" and same_origin(url, self.ctx.state.url):
            try:
                if isinstance(ahead, TabPilotError):
                    raise ahead
                got = ahead if ahead is not None else await self._fetch(url)
            except TabPilotError as exc:
                # A reset was tried twice already (_call): rendering would ask the failing server again.
                if exc.code not in policy.RENDER_INSTEAD or inflight.transient(exc):
                    raise
                # This page's scripts could make secrets its HTML does not mark (policy.py).
                self.info["rendered"] = self.info.get("rendered", 0) + 1
                return await self._tab(url, expect=None if self.spec.wait_for else drawn)
            hollow = got.ready and drawn is not None and empty(got)
            if got.redirected or (got.ready and not hollow):
                return got
            self.info["rendered"] = self.info.get("rendered", 0) + 1
            if hollow:
                return await self._tab(url, expect=drawn)
        return await self._tab(url, expect=None if self.spec.wait_for else drawn)

    async def close(self) -> None:
        """Close the background tabs this reader kept open (errors ignored: the browser may be gone)."""
        await self.batches.close()
        if self.letting_go is not None:
            await self.letting_go  # under way since the check chose fetching: over by now, mostly
        if not self.opened:
            return
        self.idle.clear()
        await self._release(self.pool)

    async def _release(self, pool: str) -> None:
        with contextlib.suppress(TabPilotError, TimeoutError):
            async with asyncio.timeout(_RELEASE_MS / 1000):
                await self.ctx.browser.call(ReleaseTabs(id=0, pool=pool))

    def _let_go(self) -> None:
        """Fetching won: the check's tab (idle now: only the check renders before the choice) is closed
        beside the fetches rather than on the answer's path at the end; a page rendered after this opens
        a tab of a new pool."""
        if not self.opened:
            return
        old, self.pool = self.pool, f"follow-{uuid.uuid4().hex[:12]}"
        self.idle.clear()
        self.opened = False
        self.letting_go = asyncio.ensure_future(self._release(old))

    async def _check(self, url: str, ahead: Read | TabPilotError | None) -> Read:
        ended = self.checking = asyncio.Event()
        try:
            return await self._both(url, ahead)
        finally:
            self.checking = None
            ended.set()

    async def _both(self, url: str, ahead: Read | TabPilotError | None) -> Read:
        if not same_origin(url, self.ctx.state.url):
            self._decide("tab", "the detail pages are on another origin than the list")
            return await self._tab(url)
        fetched = ahead
        if fetched is None:
            try:
                fetched = await self._fetch(url)
            except TabPilotError as exc:
                fetched = exc
        if isinstance(fetched, Read) and fetched.inert and fetched.ready and not fetched.redirected:
            # Nothing on it runs or moves (policy.py): rendered, it reads its served HTML as fetched.
            self._decide("fetch", None)
            return fetched
        [rendered] = await asyncio.gather(self._tab(url), return_exceptions=True)
        if isinstance(rendered, BaseException) and not isinstance(rendered, TabPilotError):
            raise rendered
        if isinstance(rendered, BaseException):
            raise rendered  # this page failed: the next one checks again
        copy = policy.Copy(fetched.rows, ready=fetched.ready) if isinstance(fetched, Read) else fetched
        why = policy.mismatch(copy, policy.Copy(rendered.rows), "the first detail page")
        self._decide("fetch" if why is None else "tab", why)
        return rendered

    def _decide(self, mode: str, why: str | None) -> None:
        if self.info.get("mode") is None:
            self.info["mode"] = mode
            if why:
                self.info["why"] = why
            if mode == "fetch":
                self._let_go()

    async def _tab(self, url: str, *, expect: str | None = None) -> Read:
        reuse = self.idle.pop() if self.idle else None
        self.opened = True
        command = ExtractTab(
            id=0,
            url=url,
            fields=self.plans,
            selector=self.spec.selector or ":root",
            wait_for=self.spec.wait_for,
            timeout_ms=self.timeout_ms,
            pool=self.pool,
            reuse_tab_id=reuse,
            expect=expect,
        )
        a = await self._call(ExtractTabReply, command)  # a failed read closed its tab
        if a.kept_tab_id is not None:
            self.idle.append(a.kept_tab_id)
        if a.redirected and a.landed is not None and not same_origin(url, a.landed):
            raise TabPilotError(
                ErrorCode.NAVIGATION_REDIRECT,
                f"{url} redirected to another site ({_origin(a.landed)}); the run stops before reading it",
                data={"url": url, "to": _origin(a.landed)},
            )
        return Read(rows=a.rows, warnings=a.warnings, landed=a.landed, redirected=a.redirected)

    async def _fetch(self, url: str) -> Read:
        probe = [FieldPlan(name=_READY, selector=self.spec.wait_for)] if self.spec.wait_for else []
        command = FetchExtract(
            id=0,
            url=url,
            fields=self.plans + probe,
            selector=self.spec.selector,
            limit=1,
            timeout_ms=self.timeout_ms,
        )
        try:
            a, site_s = await self.batches.fetch(command)
        except TabPilotError as exc:
            if not inflight.transient(exc):
                raise
            self.info["retried"] = self.info.get("retried", 0) + 1  # tried once more (as _call)
            a, site_s = await self.batches.fetch(command)
        rows = [r[: len(self.plans)] for r in a.rows]
        ready = bool(rows) and (not probe or a.rows[0][-1] is not None)
        return Read(
            rows=rows,
            warnings=a.warnings,
            landed=a.url,
            redirected=a.redirected,
            ready=ready,
            inert=a.inert,
            site_s=site_s,
        )

    async def _raw(self, command: FetchDetails | FetchExtract) -> Any:
        """The extension's answer to `command` within its own time limit (a fetch_details may wait for
        places at the site), the run's own URL left as it was."""
        state = self.ctx.state
        url, first = state.url, state.first_url
        try:
            return await self.ctx.call(command, command.timeout_ms)
        finally:
            state.url, state.first_url = url, first

    async def _call(self, cls: type[_R], command: Command) -> _R:
        # An answer's `url` would move the run's own URL (the list's page) to the detail page's.
        state = self.ctx.state
        url, first = state.url, state.first_url
        try:
            try:
                return decode_reply(cls, await self.ctx.call(command, self.timeout_ms))
            except TabPilotError as exc:
                if not inflight.transient(exc):
                    raise
            # A server error or a dropped connection is tried once more (in a fresh tab: a failed read
            # closed its own) before it costs the row; follow's pace learns of it from `retried`.
            self.info["retried"] = self.info.get("retried", 0) + 1
            if isinstance(command, ExtractTab):
                command = msgspec.structs.replace(command, reuse_tab_id=None)
            return decode_reply(cls, await self.ctx.call(command, self.timeout_ms))
        finally:
            state.url, state.first_url = url, first
