"""A loopback server that logs every request it gets (method, path, cookies) and answers from a table
of pages and redirects: the way to prove a request never left the browser."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tabpilot.demo.server import loopback


@dataclass
class Logged:
    """`pages` maps a path (query included) to HTML, `redirects` a path to a Location; `requests`
    lists what arrived as (method, path, Cookie header). `headers` adds response headers to pages."""

    pages: dict[str, str] = field(default_factory=dict[str, str])
    redirects: dict[str, str] = field(default_factory=dict[str, str])
    headers: dict[str, str] = field(default_factory=dict[str, str])
    url: str = ""
    requests: list[tuple[str, str, str]] = field(default_factory=list[tuple[str, str, str]])
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self) -> list[tuple[str, str, str]]:
        with self.lock:
            return list(self.requests)

    def gets(self, path: str) -> int:
        """How many GET requests for `path` (query included) arrived."""
        return sum(1 for method, got, _ in self.seen() if method == "GET" and got == path)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, site: Logged, **kwargs: Any) -> None:
        self.site = site
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _answer(self) -> None:
        with self.site.lock:
            self.site.requests.append((self.command, self.path, self.headers.get("Cookie", "")))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        target = self.site.redirects.get(self.path)
        if target is not None:
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        html = self.site.pages.get(self.path)
        body = (html or "<!doctype html><title>Not found</title>").encode()
        self.send_response(200 if html is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in self.site.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer


@contextmanager
def serve_logged(
    pages: dict[str, str] | None = None, redirects: dict[str, str] | None = None
) -> Iterator[Logged]:
    """Serve on an ephemeral loopback port, logging every request."""
    site = Logged(pages=dict(pages or {}), redirects=dict(redirects or {}))
    with loopback(functools.partial(_Handler, site=site)) as url:
        site.url = url
        yield site
