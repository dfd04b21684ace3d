"""The site's own time during a tool call: how long the app server was busy answering the requests the
call made (tests/fixtures/realapps/sitelog.py logs them), the floor under any tool making the same
requests. Requests in parallel overlap: the busy time is the length of the union of their intervals.
`plain_http` sends a call's requests again from a plain HTTP client, as the call had to order them: the
time that takes is the floor a tool making those requests could reach."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from tests.fixtures.realapps.sitelog import Recording, Request


def union_length(spans: Iterable[tuple[float, float]]) -> float:
    """Total length covered by the (start, end) intervals, overlaps counted once."""
    covered, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered


@dataclass(frozen=True)
class SiteTime:
    """The site's share of one window: busy ms (the union of its request intervals) and requests."""

    busy_ms: float
    requests: int

    @classmethod
    def of(cls, requests: list[Request], start: float, end: float) -> SiteTime:
        """The requests' busy time inside the window [start, end] (monotonic seconds)."""
        spans = [(max(r.start, start), min(r.end, end)) for r in requests]
        busy = union_length((a, b) for a, b in spans if b > a)
        return cls(busy_ms=busy * 1000, requests=len(requests))

    @classmethod
    def read(cls, recording: Recording, start: float, end: float) -> tuple[SiteTime, list[Request]]:
        """The site's time for a window from a request log, and the requests themselves."""
        requests = recording.between(start, end)
        return cls.of(requests, start, end), requests


def _cookie(jar: dict[str, str], header: str) -> None:
    """Keep (or drop, when it expires now) the cookie one Set-Cookie header sets."""
    pair, *attrs = header.split(";")
    name, _, value = pair.strip().partition("=")
    gone = any(a.strip().lower() in ("max-age=0", "max-age=-1") for a in attrs)
    if gone or not value:
        jar.pop(name, None)
    else:
        jar[name] = value


class _Replay:
    """The same requests again from plain Python: each starts once every request that had ended before it
    started in the log has ended here (what a tool had to wait for, a plain client waits for too), on
    kept-alive connections, with the cookies the answers set."""

    def __init__(self, base: str, requests: list[Request], forms: dict[str, dict[str, str]]) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.requests, self.forms = requests, forms
        self.done = [threading.Event() for _ in requests]
        self.jar: dict[str, str] = {}
        self.lock = threading.Lock()
        self.idle: list[http.client.HTTPConnection] = []
        self.failed: list[BaseException] = []

    def _one(self, i: int) -> None:
        try:
            self._send(i)
        except Exception as exc:  # the run reports it; the requests after it are not held up
            self.failed.append(exc)
        finally:
            self.done[i].set()

    def _send(self, i: int) -> None:
        r = self.requests[i]
        for j, before in enumerate(self.requests):
            if before.end <= r.start:
                self.done[j].wait()
        with self.lock:
            conn = self.idle.pop() if self.idle else http.client.HTTPConnection(self.host, self.port)
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.jar.items())} if self.jar else {}
        body = None
        form = self.forms.get(r.path.split("?", 1)[0]) if r.method == "POST" else None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(r.method, r.path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        with self.lock:
            for header in answer.headers.get_all("Set-Cookie") or []:
                _cookie(self.jar, header)
            self.idle.append(conn)

    def run(self) -> float:
        threads = [threading.Thread(target=self._one, args=(i,)) for i in range(len(self.requests))]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - started
        for conn in self.idle:
            conn.close()
        if self.failed:
            raise self.failed[0]
        return took


def plain_http(
    base: str, requests: list[Request], forms: dict[str, dict[str, str]] | None = None, runs: int = 1
) -> float:
    """Milliseconds plain HTTP takes for `requests` (a call's, from the log) against the server at `base`,
    best of `runs`: the floor under any tool that needs those requests. A POST is sent with the form
    `forms` gives for its path (the log keeps no bodies)."""
    return min(_Replay(base, requests, forms or {}).run() for _ in range(runs)) * 1000
