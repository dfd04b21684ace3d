"""A call waits up to 8 s for a browser's host that just went (extension/README.md), also while other
browsers stay connected: it neither answers browser_not_found at once nor goes to another browser
because that one is, for the moment, the only one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from tabpilot.link.client import BrowserConnection, BrowserPool, PinnedBrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_extension import FakeExtension

pytestmark = pytest.mark.anyio

WAIT_S = 30
RESTARTING = "aaaa00000000000a"
STAYING = "bbbb00000000000b"


class Watched(BrowserPool):
    """A pool that says when a call has looked at the browsers (the moment to bring one back)."""

    def __init__(self) -> None:
        super().__init__(connect_wait_s=0.2)
        self.looked = asyncio.Event()

    async def _discover(self) -> list[BrowserConnection]:
        found = await super()._discover()
        self.looked.set()
        return found


class WatchedPinned(PinnedBrowserPool, Watched):
    def __init__(self, pinned: str) -> None:
        Watched.__init__(self)
        self.pinned = pinned


@asynccontextmanager
async def two_browsers(env: dict[str, str], pool: Watched) -> AsyncIterator[list[FakeExtension]]:
    """Two connected browsers; the first (piloted, the other not) has just gone when this yields."""
    first = FakeExtension(env, RESTARTING)
    other = FakeExtension(env, STAYING)
    other.pilot = False
    started = [first, other]
    try:
        await first.start()
        await other.start()
        here = {b.instance_id for b in await pool.browsers()}
        assert here == {RESTARTING, STAYING}
        await first.stop()
        yield started
    finally:
        await pool.aclose()
        for fake in started:
            if fake.proc is not None and fake.proc.returncode is None:
                await fake.stop()


async def _while_it_comes_back(
    env: dict[str, str], pool: Watched, browsers: list[FakeExtension], call: Awaitable[Any]
) -> Any:
    """Run `call`; once it has looked and found the browser gone, bring the browser back."""
    pool.looked.clear()
    task = asyncio.ensure_future(call)
    await pool.looked.wait()
    back = FakeExtension(env, RESTARTING)
    browsers.append(back)
    await back.start()
    return await task


async def test_a_call_naming_a_restarting_browser_waits_for_it(tp_dirs: dict[str, str]) -> None:
    pool = Watched()
    async with asyncio.timeout(WAIT_S), two_browsers(tp_dirs, pool) as browsers:
        status = pool.call(m.GetStatus(id=0), browser=RESTARTING)
        answer = await _while_it_comes_back(tp_dirs, pool, browsers, status)
        assert answer["instance_id"] == RESTARTING


async def test_a_pinned_bridge_waits_for_its_restarting_browser(tp_dirs: dict[str, str]) -> None:
    pool = WatchedPinned(RESTARTING)
    async with asyncio.timeout(WAIT_S), two_browsers(tp_dirs, pool) as browsers:
        answer = await _while_it_comes_back(tp_dirs, pool, browsers, pool.call(m.GetStatus(id=0)))
        assert answer["instance_id"] == RESTARTING


async def test_an_unnamed_call_waits_rather_than_going_to_the_browser_left(tp_dirs: dict[str, str]) -> None:
    # The piloted browser is the one an unnamed call goes to; while it restarts the other is the only
    # one connected, which must not make it the chosen one.
    pool = Watched()
    async with asyncio.timeout(WAIT_S), two_browsers(tp_dirs, pool) as browsers:
        answer = await _while_it_comes_back(tp_dirs, pool, browsers, pool.call(m.GetStatus(id=0)))
        assert answer["instance_id"] == RESTARTING


async def test_a_browser_that_never_comes_back_is_not_found_after_the_wait(tp_dirs: dict[str, str]) -> None:
    pool = Watched()
    async with asyncio.timeout(WAIT_S), two_browsers(tp_dirs, pool):
        began = time.monotonic()
        with pytest.raises(TabPilotError) as missing:
            await pool.call(m.GetStatus(id=0), browser=RESTARTING)
        assert missing.value.code == ErrorCode.BROWSER_NOT_FOUND
        assert time.monotonic() - began >= 7.5  # the documented wait, not an answer at once
        # The browser left still answers at once when named.
        assert (await pool.call(m.GetStatus(id=0), browser=STAYING))["instance_id"] == STAYING


async def test_a_name_no_browser_ever_had_is_not_found_after_the_short_wait(tp_dirs: dict[str, str]) -> None:
    pool = Watched()
    async with asyncio.timeout(WAIT_S), two_browsers(tp_dirs, pool):
        with pytest.raises(TabPilotError) as missing:
            await pool.call(m.GetStatus(id=0), browser="no-such-browser")
        assert missing.value.code == ErrorCode.BROWSER_NOT_FOUND
