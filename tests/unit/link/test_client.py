"""The bridge's host pool reuses its connections and lists the socket directory only when it changed."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.link import localsock
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tests.support.fake_extension import FakeExtension

pytestmark = pytest.mark.anyio


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Every directory the pool lists, in order."""
    seen: list[Path] = []
    real = localsock.list_sockets

    def counting(directory: Path) -> list[Path]:
        seen.append(directory)
        return real(directory)

    monkeypatch.setattr(localsock, "list_sockets", counting)
    yield seen


def _age(directory: Path) -> None:
    """Make the directory look untouched for a minute (a fresh mtime is not trusted)."""
    old = time.time_ns() - 60 * 10**9
    os.utime(directory, ns=(old, old))


async def test_calls_reuse_connections_until_the_directory_changes(
    tp_dirs: dict[str, str], listings: list[Path]
) -> None:
    run = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    first = FakeExtension(tp_dirs, "aaaa000000000001")
    await first.start()
    pool = BrowserPool(connect_wait_s=5)
    second: FakeExtension | None = None
    try:
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        assert listings, "the first call lists the directory"
        _age(run)
        await pool.call(m.Ping(id=0))  # lists once more: the earlier listing was as young as the change
        listings.clear()
        for _ in range(3):
            assert await pool.call(m.Ping(id=0)) == {"pong": True}
        assert listings == [], "nothing changed: no listing"

        second = FakeExtension(tp_dirs, "aaaa000000000002")
        await second.start()  # its socket appears: the directory's mtime moves
        assert sorted(b.instance_id for b in await pool.browsers()) == [
            "aaaa000000000001",
            "aaaa000000000002",
        ]
        await second.stop()
        second = None
        assert [b.instance_id for b in await pool.browsers()] == ["aaaa000000000001"]
    finally:
        await pool.aclose()
        if second is not None:
            await second.stop()
        await first.stop()


async def test_a_closed_connection_finds_the_restarted_host_even_if_the_mtime_hides_it(
    tp_dirs: dict[str, str], listings: list[Path]
) -> None:
    run = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    first = FakeExtension(tp_dirs)
    await first.start()
    pool = BrowserPool(connect_wait_s=5)
    second: FakeExtension | None = None
    try:
        _age(run)
        await pool.call(m.Ping(id=0))
        [before] = await pool.browsers()
        await first.stop()
        second = FakeExtension(tp_dirs)  # the same browser again: same instance id, same socket path
        await second.start()
        _age(run)  # as if the restart had not touched the directory
        listings.clear()
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        assert listings, "the closed connection made the pool look again"
        [after] = await pool.browsers()
        assert after.instance_id == before.instance_id and after.pid != before.pid
    finally:
        await pool.aclose()
        if second is not None:
            await second.stop()


async def test_a_refused_socket_is_removed_only_once_it_is_not_brand_new(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    run.mkdir(mode=0o700)
    path = run / "bbbb000000000001.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))  # bound, not listening yet: a host starting up looks like this for a moment
    pool = BrowserPool(connect_wait_s=0)
    try:
        assert await pool.browsers() == []
        assert path.exists(), "a host between bind and listen keeps its socket"
        old = time.time_ns() - 60 * 10**9
        os.utime(path, ns=(old, old))
        assert await pool.browsers() == []
        assert not path.exists(), "a socket nobody listens on for a while is stale"
    finally:
        sock.close()
        await pool.aclose()


async def test_a_call_waits_a_while_for_a_host_that_just_went(tp_dirs: dict[str, str]) -> None:
    # An extension process that crashed is revived by its watchdog alarm about 2 s later, longer than
    # a call waits for a browser that was never there.
    first = FakeExtension(tp_dirs)
    await first.start()
    pool = BrowserPool(connect_wait_s=0.2)
    second = FakeExtension(tp_dirs)
    try:
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        await first.stop()

        async def comes_back() -> None:
            await asyncio.sleep(1.0)  # the scenario: back later than connect_wait_s
            await second.start()

        revival = asyncio.get_running_loop().create_task(comes_back())
        try:
            assert await pool.call(m.Ping(id=0)) == {"pong": True}
        finally:
            await revival
    finally:
        await pool.aclose()
        if second.proc is not None:
            await second.stop()
