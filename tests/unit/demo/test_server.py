"""The demo/test page server's small login: gated pages, sessions, logout, no open redirect."""

from __future__ import annotations

import http.client
import urllib.parse
from pathlib import Path

from tabpilot.demo.server import COOKIE, DEMO_PASSWORD, DEMO_USER, SITE, serve_site


def _request(url: str, method: str, path: str, body: dict[str, str] | None = None, cookie: str = ""):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    data = None
    if body is not None:
        data = urllib.parse.urlencode(body)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def _session(response: http.client.HTTPResponse) -> str:
    set_cookie = response.getheader("Set-Cookie") or ""
    assert set_cookie.startswith(f"{COOKIE}=") and "HttpOnly" in set_cookie
    return set_cookie.split(";", 1)[0]


def test_private_pages_need_a_session_and_logout_ends_it() -> None:
    with serve_site() as site:
        gated = _request(site.url, "GET", "/private/backlog-2.html")
        assert gated.status == 302
        assert gated.getheader("Location") == "/login.html?next=%2Fprivate%2Fbacklog-2.html"
        assert _request(site.url, "GET", "/login.html").status == 200

        wrong = _request(site.url, "POST", "/login", {"username": DEMO_USER, "password": "nope"})
        assert wrong.status == 303 and "failed=1" in (wrong.getheader("Location") or "")
        assert wrong.getheader("Set-Cookie") is None

        form = {"username": DEMO_USER, "password": DEMO_PASSWORD, "next": "/private/backlog-2.html"}
        ok = _request(site.url, "POST", "/login", form)
        assert ok.status == 303 and ok.getheader("Location") == "/private/backlog-2.html"
        cookie = _session(ok)
        assert _request(site.url, "GET", "/private/backlog-2.html", cookie=cookie).status == 200
        assert _request(site.url, "GET", "/private/backlog-2.html", cookie=f"{COOKIE}=forged").status == 302

        out = _request(site.url, "GET", "/logout?then=/private/backlog-1.html", cookie=cookie)
        assert out.status == 303 and out.getheader("Location") == "/private/backlog-1.html"
        assert _request(site.url, "GET", "/private/backlog-1.html", cookie=cookie).status == 302


def test_login_never_sends_the_browser_off_site() -> None:
    with serve_site(Path(SITE)) as site:
        for target in ("https://evil.test/", "//evil.test/x", "javascript:alert(1)"):
            form = {"username": DEMO_USER, "password": DEMO_PASSWORD, "next": target}
            answer = _request(site.url, "POST", "/login", form)
            assert answer.getheader("Location") == "/private/"
            assert _request(site.url, "GET", f"/logout?then={urllib.parse.quote(target)}").getheader(
                "Location"
            ) == ("/login.html")
        assert _request(site.url, "POST", "/elsewhere", {}).status == 405
