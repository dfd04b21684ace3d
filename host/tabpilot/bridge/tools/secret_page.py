"""A page on this computer where the person types a secret a run needs (a replay's password): the
value goes from the person's browser straight to the bridge, never through the MCP client or the agent.
MCP's URL-mode elicitation sends the person here (bridge/tools/ask.py); form mode must not carry
passwords.

One small HTTP server per bridge process, on 127.0.0.1 and a port the system picks, started on first
use in a thread of its own (a page outlives the tool call that opened it: on the 2026-07-28 protocol
the answer arrives with the call's retry). Each page is a one-time address with an unguessable token;
it takes one submission, from a page it served itself (Host and Origin checked, so another site's
page cannot post to it), and nothing is logged.
"""

from __future__ import annotations

import html
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread

_MAX_BODY = 64 * 1024
_PREFIX = "/tabpilot/secret/"


class SecretPage:
    """One request for secrets: the names asked for, and what the person submitted (once)."""

    def __init__(self, names: list[str], why: str, port: int) -> None:
        self.id = secrets.token_urlsafe(24)
        self.names = list(names)
        self.why = why
        self.url = f"http://127.0.0.1:{port}{_PREFIX}{self.id}"
        self.values: dict[str, str] | None = None
        self._done = threading.Event()

    def submit(self, values: dict[str, str]) -> None:
        """The person's answer."""
        self.values = values
        self._done.set()

    async def wait(self, timeout_s: float) -> dict[str, str] | None:
        """The submitted values, or None if none came within `timeout_s`."""
        done = await anyio.to_thread.run_sync(self._done.wait, timeout_s, abandon_on_cancel=True)
        return self.values if done else None

    def close(self) -> None:
        """Forget the page: its address answers 404 from now on."""
        _PAGES.pop(self.id, None)


_PAGES: dict[str, SecretPage] = {}
_lock = threading.Lock()
_server: ThreadingHTTPServer | None = None


def open_page(names: list[str], why: str) -> SecretPage:
    """A new page asking for `names` (`why` says what for), served until it is answered or closed."""
    port = _serve()
    page = SecretPage(names, why, port)
    _PAGES[page.id] = page
    return page


def find(page_id: str | None) -> SecretPage | None:
    """The open page with this id, if any."""
    return _PAGES.get(page_id or "")


def _serve() -> int:
    global _server
    with _lock:
        if _server is None:
            _server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
            _server.daemon_threads = True
            threading.Thread(target=_server.serve_forever, name="tabpilot-secret-page", daemon=True).start()
        return int(_server.server_port)


def _form(page: SecretPage) -> str:
    fields = "".join(
        f'<p><label>{html.escape(n)}<br><input type="password" name="{html.escape(n)}" '
        'autocomplete="off" required></label></p>'
        for n in page.names
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>TabPilot needs a secret</title>'
        "<style>body{font:16px sans-serif;max-width:36em;margin:3em auto}input{font:inherit;width:100%}"
        "</style></head><body><h1>TabPilot needs a secret</h1>"
        f"<p>{html.escape(page.why)}</p><p>What you type goes to TabPilot on this computer, not to the "
        f'agent.</p><form method="post">{fields}<button type="submit">Send to TabPilot</button></form>'
        "</body></html>"
    )


class _Handler(BaseHTTPRequestHandler):
    server_version = "TabPilot"

    def log_message(self, format: str, *args: Any) -> None:
        return  # the path holds the page's token: never written anywhere

    def _page(self) -> SecretPage | None:
        path = str(self.path)
        page = _PAGES.get(path[len(_PREFIX) :]) if path.startswith(_PREFIX) else None
        return page if page is not None and page.values is None else None  # one answer per page

    def _same_site(self) -> bool:
        here = f"127.0.0.1:{_serve()}"
        origin = self.headers.get("Origin")
        return self.headers.get("Host") == here and origin in (None, f"http://{here}")

    def _answer(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header(
            "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
        )
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        page = self._page()
        if page is None or not self._same_site():
            return self._answer(404, "<p>No such page (it was answered, or it expired).</p>")
        self._answer(200, _form(page))

    def do_POST(self) -> None:
        page = self._page()
        length = int(self.headers.get("Content-Length") or 0)
        if page is None or not self._same_site() or not 0 < length <= _MAX_BODY:
            return self._answer(404, "<p>No such page (it was answered, or it expired).</p>")
        form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True)
        values = {n: form.get(n, [""])[0] for n in page.names}
        if not all(values.values()):
            return self._answer(400, _form(page))
        page.submit(values)
        self._answer(200, "<p>TabPilot has it. You can close this page and return to your agent.</p>")
