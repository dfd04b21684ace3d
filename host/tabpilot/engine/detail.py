"""Reading one detail page for `follow`: fetched and parsed in the list's page (`fetch_extract`: no
rendering, no tab, the page agent's own extract and redaction), or rendered in a background tab
(`extract_tab`). Fetching is decided once a run, on the first detail page, read both ways: it is used
when the two read the same (a page whose fields its scripts draw reads differently fetched), and only
for pages on the list's origin. A fetched page without the root `selector` or the `wait_for` element
is read again rendered: its scripts may draw them."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from ..wire.errors import TabPilotError
from ..wire.messages import Command, ExtractTab, FetchExtract, FieldPlan
from ..wire.scrape import Follow
from .context import Context, obj

_READY = "__ready"  # the probe field a fetch reads for `wait_for` (null: not in the served HTML)


def same_origin(a: str, b: str | None) -> bool:
    """Whether two URLs share scheme, host and port."""
    if not b:
        return False
    x, y = urlsplit(a), urlsplit(b)
    return (x.scheme, x.hostname, x.port) == (y.scheme, y.hostname, y.port)


class DetailReader:
    """Reads the detail pages of one follow; `info["mode"]` is None until the first page decides it."""

    def __init__(
        self, ctx: Context, spec: Follow, plans: list[FieldPlan], timeout_ms: int, info: dict[str, Any]
    ) -> None:
        self.ctx, self.spec, self.plans, self.timeout_ms, self.info = ctx, spec, plans, timeout_ms, info

    async def read(self, url: str) -> dict[str, Any]:
        """The page's `{rows, warnings, landed, redirected}`; a failure of this page raises."""
        mode = self.info.get("mode")
        if mode is None:
            return await self._check(url)
        if mode == "fetch" and same_origin(url, self.ctx.state.url):
            got = await self._fetch(url)
            if got["redirected"] or got["ready"]:
                return got
        return await self._tab(url)

    async def _check(self, url: str) -> dict[str, Any]:
        if not same_origin(url, self.ctx.state.url):
            self._decide("tab", "the detail pages are on another origin than the list")
            return await self._tab(url)
        both = await asyncio.gather(self._tab(url), self._fetch(url), return_exceptions=True)
        for got in both:
            if isinstance(got, BaseException) and not isinstance(got, TabPilotError):
                raise got
        rendered, fetched = both
        if isinstance(rendered, BaseException):
            raise rendered  # this page failed: the next one checks again
        if isinstance(fetched, BaseException):
            code = fetched.code if isinstance(fetched, TabPilotError) else "error"
            self._decide("tab", f"fetching the first detail page failed ({code})")
        elif fetched["rows"] != rendered["rows"] or not fetched["ready"]:
            self._decide("tab", "the first detail page reads differently fetched (its scripts draw it)")
        else:
            self._decide("fetch", None)
        return rendered

    def _decide(self, mode: str, why: str | None) -> None:
        if self.info.get("mode") is None:
            self.info["mode"] = mode
            if why:
                self.info["why"] = why

    async def _tab(self, url: str) -> dict[str, Any]:
        command = ExtractTab(
            id=0,
            url=url,
            fields=self.plans,
            selector=self.spec.selector or ":root",
            wait_for=self.spec.wait_for,
            timeout_ms=self.timeout_ms,
        )
        a = await self._call(command)
        return {k: a.get(k) for k in ("rows", "warnings", "landed", "redirected")}

    async def _fetch(self, url: str) -> dict[str, Any]:
        probe = [FieldPlan(name=_READY, selector=self.spec.wait_for)] if self.spec.wait_for else []
        command = FetchExtract(
            id=0,
            url=url,
            fields=self.plans + probe,
            selector=self.spec.selector,
            limit=1,
            timeout_ms=self.timeout_ms,
        )
        a = await self._call(command)
        raw: list[Any] = a.get("rows") or []
        rows = [r[: len(self.plans)] for r in raw]
        ready = bool(rows) and (not probe or raw[0][-1] is not None)
        landed, redirected = a.get("url"), a.get("redirected")
        return {
            "rows": rows,
            "warnings": a.get("warnings"),
            "landed": landed,
            "redirected": redirected,
            "ready": ready,
        }

    async def _call(self, command: Command) -> dict[str, Any]:
        # An answer's `url` would move the run's own URL (the list's page) to the detail page's.
        state = self.ctx.state
        url, first = state.url, state.first_url
        try:
            return obj(await self.ctx.call(command, self.timeout_ms))
        finally:
            state.url, state.first_url = url, first
