"""The site's busy time (bench/sitetime.py) and the request log it reads (realapps/sitelog.py)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from bench.sitetime import SiteTime, plain_http, union_length

from tabpilot.demo.server import loopback
from tests.fixtures.realapps import sitelog
from tests.fixtures.realapps.sitelog import Recording, Request


def _req(start: float, end: float) -> Request:
    return Request(start=start, end=end, method="GET", path="/", status=200)


def test_union_counts_overlaps_once() -> None:
    assert union_length([]) == 0
    assert union_length([(0, 1), (2, 3)]) == 2  # apart
    assert union_length([(0, 2), (1, 3)]) == 3  # overlapping
    assert union_length([(0, 10), (2, 3), (4, 5)]) == 10  # nested
    assert union_length([(5, 6), (0, 2), (1, 3)]) == 4  # any order
    assert union_length([(0, 1), (1, 2)]) == 2  # touching


def test_site_time_is_clipped_to_the_window() -> None:
    # Parallel fetches 1.0-1.3 and 1.1-1.2, then one running past the window's end at 2.0.
    site = SiteTime.of([_req(1.0, 1.3), _req(1.1, 1.2), _req(1.9, 2.5)], start=1.0, end=2.0)
    assert site.requests == 3
    assert site.busy_ms == pytest.approx(400)


def test_recording_reads_the_window_by_start(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    rec = Recording(log)
    assert rec.requests() == []
    for start, path in ((1.0, "/before"), (2.0, "/a"), (2.5, "/b"), (3.0, "/after")):
        sitelog.write(str(log), start, "GET", path, 200)
    assert [r.path for r in rec.between(2.0, 3.0)] == ["/a", "/b"]
    site, requests = SiteTime.read(rec, 2.0, 3.0)
    assert site.requests == 2 and len(requests) == 2


def _hello(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    start_response("201 Created", [("Content-Type", "text/plain")])
    return [b"hello"]


def test_wsgi_is_the_app_itself_when_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sitelog.ENV, raising=False)
    assert sitelog.wsgi(_hello) is _hello


def test_wsgi_logs_each_request_once_its_body_is_sent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv(sitelog.ENV, str(log))
    app = sitelog.wsgi(_hello)
    environ = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "/tracker",
        "PATH_INFO": "/issue",
        "QUERY_STRING": "x=1",
    }
    before = time.monotonic()
    body = app(environ, lambda status, headers, *exc: None)
    assert not log.exists()  # nothing logged before the body is sent
    assert b"".join(body) == b"hello"
    (line,) = Recording(log).requests()
    assert (line.method, line.path, line.status) == ("POST", "/tracker/issue?x=1", 201)
    assert before <= line.start <= line.end <= time.monotonic()
    assert json.loads(log.read_text())["status"] == 201


class _Page(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # kept-alive: the wait for the next request is not logged

    def do_GET(self) -> None:
        self.send_response(404 if self.path == "/missing" else 200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_http_handler_is_the_class_itself_when_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sitelog.ENV, raising=False)
    assert sitelog.http_handler(_Page) is _Page


def test_http_handler_logs_each_request(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with loopback(sitelog.http_handler(_Page, str(log)), join=True) as url:  # their lines are written on exit
        with urllib.request.urlopen(url + "/a?b=1", timeout=10) as reply:
            assert reply.read() == b"ok"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url + "/missing", timeout=10)
    got = sorted((r.path, r.status, r.method) for r in Recording(log).requests())
    assert got == [("/a?b=1", 200, "GET"), ("/missing", 404, "GET")]


class _Session(BaseHTTPRequestHandler):
    """A login (POST /login with the right form sets a cookie) and a page answering 200 only with it;
    every request seen is kept, in order, with its cookie."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[str, str, str]]] = []

    def _answer(self, status: int, cookie: str | None = None) -> None:
        self.seen.append((self.command, self.path, self.headers.get("Cookie") or ""))
        self.send_response(status)
        if cookie:
            self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._answer(200 if self.headers.get("Cookie") == "sid=s1" else 403)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer(303, "sid=s1; Path=/; HttpOnly" if body == b"name=ada&pw=x" else None)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _logged(method: str, path: str, start: float, end: float) -> Request:
    return Request(start=start, end=end, method=method, path=path, status=200)


def test_plain_http_replays_the_calls_requests_with_its_login() -> None:
    _Session.seen = []
    # The login, then two pages that were in flight together, then one that came after both.
    log = [
        _logged("POST", "/login", 0.0, 0.1),
        _logged("GET", "/a", 0.2, 0.5),
        _logged("GET", "/b", 0.3, 0.4),
        _logged("GET", "/c?page=2", 0.6, 0.7),
    ]
    with loopback(_Session, join=True) as url:
        ms = plain_http(url, log, {"/login": {"name": "ada", "pw": "x"}}, runs=2)
    assert ms > 0
    first = _Session.seen[:4]
    assert first[0] == ("POST", "/login", "")
    assert {p for _, p, _ in first[1:3]} == {"/a", "/b"} and first[3][1] == "/c?page=2"
    assert all(cookie == "sid=s1" for _, _, cookie in first[1:])  # the login's cookie went along
    assert len(_Session.seen) == 8  # two runs
