"""A real headless Chromium launched as a dedicated profile: connects, loads a URL, refuses twice, stops."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.browser import launch, process
from tabpilot.link.client import BrowserConnection
from tabpilot.wire import messages as m
from tabpilot.wire.errors import TabPilotError


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>launch test</title><p>hello</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page"
    server.shutdown()
    server.server_close()


async def _info_and_tabs(sock: Path) -> tuple[m.BrowserInfo, bytes]:
    conn = await BrowserConnection.open(sock)
    try:
        assert conn.info is not None
        tabs = await conn.request(m.ListTabs(id=0), timeout_s=10)
        return conn.info, bytes(tabs)
    finally:
        await conn.aclose()


def test_launch_pilot_profile_then_stop(tp_dirs: dict[str, str], page_url: str) -> None:
    launched = launch.launch_profile("e2e", headless=True, pilot=True, url=page_url)
    try:
        assert launched.socket.is_socket()
        assert launched.notes == [f"loaded {page_url}"]
        info, tabs = asyncio.run(_info_and_tabs(launched.socket))
        assert info.instance_id == launched.instance_id
        assert info.label == "TabPilot profile e2e" and info.profile == "e2e"
        assert info.pilot is True
        assert page_url.encode() in tabs
        with pytest.raises(TabPilotError, match="already running"):
            launch.launch_profile("e2e", headless=True)
    finally:
        result = launch.stop_profile("e2e")
        launched.stop()
    assert result.stopped and result.pid == launched.pid
    assert not process.alive(launched.pid)
