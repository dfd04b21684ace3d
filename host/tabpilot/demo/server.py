"""A page server on 127.0.0.1 for the demo site and test pages (TCP_NODELAY: no 40 ms stalls).

Besides static files it has just enough of a login to show a scrape behind one: `POST /login`
(username, password, next) sets a session cookie, `/logout?then=PATH` ends the session, and every
page under `/private/` redirects to `/login.html?next=...` without a session. `?delay_ms=N` on any
request answers it N ms late (at most 10 s): a slow server, for tests and benchmarks.
"""

from __future__ import annotations

import functools
import secrets
import socket
import threading
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import BaseRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from .. import assets

SITE = assets.demo_site_dir()
PRIVATE = "/private/"
COOKIE = "tp_session"
DEMO_USER = "demo"
DEMO_PASSWORD = "open-sesame"
_MAX_FORM = 16 * 1024
_MAX_DELAY_MS = 10_000


@dataclass
class Site:
    """A running server: its base URL and the sessions it has handed out."""

    url: str
    user: str = DEMO_USER
    password: str = DEMO_PASSWORD
    sessions: set[str] = field(default_factory=set[str])
    lock: threading.Lock = field(default_factory=threading.Lock)

    def login(self, user: str, password: str) -> str | None:
        """A new session token for the right credentials, else None."""
        if not (secrets.compare_digest(user, self.user) and secrets.compare_digest(password, self.password)):
            return None
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.sessions.add(token)
        return token

    def valid(self, token: str | None) -> bool:
        """Is `token` a live session?"""
        with self.lock:
            return token is not None and token in self.sessions

    def logout(self, token: str | None) -> None:
        """End one session."""
        with self.lock:
            self.sessions.discard(token or "")


def _local_path(value: str | None, default: str) -> str:
    # Only paths on this site: a `next` pointing elsewhere would make the login an open redirect.
    if value and value.startswith("/") and not value.startswith("//"):
        return value
    return default


class _Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, site: Site, **kwargs: Any) -> None:
        self.site = site  # before super().__init__, which handles the request
        super().__init__(*args, **kwargs)

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _token(self) -> str | None:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel is not None else None

    def _redirect(self, location: str, status: int = 303, cookie: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        if cookie is not None:
            self.send_header("Set-Cookie", cookie)
        self.end_headers()

    def _gate(self) -> bool:
        """Send the login redirect for a private page without a session; True when it did."""
        if urlsplit(self.path).path.startswith(PRIVATE) and not self.site.valid(self._token()):
            self._redirect(f"/login.html?next={quote(self.path, safe='')}", status=302)
            return True
        return False

    def _delay(self) -> None:
        asked = parse_qs(urlsplit(self.path).query).get("delay_ms", ["0"])[0]
        if asked.isdigit():
            time.sleep(min(int(asked), _MAX_DELAY_MS) / 1000)

    def do_GET(self) -> None:
        self._delay()
        parts = urlsplit(self.path)
        if parts.path == "/logout":
            self.site.logout(self._token())
            then = _local_path(parse_qs(parts.query).get("then", [""])[0], "/login.html")
            self._redirect(then, cookie=f"{COOKIE}=; Path=/; Max-Age=0")
            return
        if not self._gate():
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._gate():
            super().do_HEAD()

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/login":
            self.send_error(405)
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_FORM:
            self.send_error(413)
            return
        form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        user, password = form.get("username", [""])[0], form.get("password", [""])[0]
        target = _local_path(form.get("next", [""])[0], PRIVATE)
        token = self.site.login(user, password)
        if token is None:
            self._redirect(f"/login.html?failed=1&next={quote(target, safe='')}")
            return
        # Max-Age makes it a persistent cookie: a relaunched profile is still logged in, as a person's is.
        self._redirect(target, cookie=f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400")


Wrap = Callable[[type[_Handler]], type[_Handler]]


@contextmanager
def loopback(handler: Callable[..., BaseRequestHandler], *, join: bool = False) -> Generator[str]:
    """Serve `handler` on an ephemeral 127.0.0.1 port in a thread; yields the base URL. On the way out
    the server stops; with `join`, it also waits for the requests still being handled."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = not join  # daemon request threads are not joined by server_close
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_site(directory: Path = SITE, wrap: Wrap | None = None) -> Generator[Site]:
    """Serve a directory (with the login above) on an ephemeral loopback port; `wrap` may subclass the
    request handler (a benchmark logs the site's requests)."""
    site = Site(url="")
    handler = functools.partial(wrap(_Handler) if wrap else _Handler, directory=str(directory), site=site)
    with loopback(handler) as url:
        site.url = url
        yield site


@contextmanager
def serve(directory: Path = SITE, wrap: Wrap | None = None) -> Generator[str]:
    """Serve a directory on an ephemeral loopback port; yields the base URL."""
    with serve_site(directory, wrap) as site:
        yield site.url
