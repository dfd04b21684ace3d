"""A tiny page server on 127.0.0.1 that counts the requests for each path and query: how many times a
scrape asked the server for a page (a page past the end is a counted 404)."""

from __future__ import annotations

import functools
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tabpilot.demo.server import loopback


@dataclass
class Counted:
    """The pages served (`"/list?page=2"` → HTML), the Cache-Control they are sent with, the requests."""

    pages: dict[str, str]
    cache_control: str = "no-store"
    url: str = ""
    asked: Counter[str] = field(default_factory=Counter[str])
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        """Forget the requests counted so far."""
        with self.lock:
            self.asked.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, site: Counted, **kwargs: Any) -> None:
        self.site = site
        super().__init__(*args, **kwargs)

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms stalls

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with self.site.lock:
            self.site.asked[self.path] += 1
        html = self.site.pages.get(self.path)
        body = (html or "<!doctype html><title>Not found</title>").encode()
        self.send_response(200 if html is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", self.site.cache_control)
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve_counted(pages: dict[str, str], cache_control: str = "no-store") -> Iterator[Counted]:
    """Serve `pages` on an ephemeral loopback port, counting every request."""
    site = Counted(pages, cache_control)
    with loopback(functools.partial(_Handler, site=site)) as url:
        site.url = url
        yield site
