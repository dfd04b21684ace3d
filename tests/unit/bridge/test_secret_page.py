"""The page where the person types a secret: only its own form may post to it (another site's page, or a
DNS-rebound name, may not), it takes one complete answer, and then its address is gone."""

from __future__ import annotations

import http.client
import urllib.parse

import anyio
import pytest

from tabpilot.bridge.tools import secret_page

pytestmark = pytest.mark.anyio


def _request(url: str, method: str, body: dict[str, str] | None = None, **headers: str) -> tuple[int, str]:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.netloc, timeout=10)
    data = urllib.parse.urlencode(body).encode() if body is not None else None
    conn.request(method, parts.path, body=data, headers=headers)
    answer = conn.getresponse()
    return answer.status, answer.read().decode()


async def test_only_its_own_form_posts_one_answer() -> None:
    page = secret_page.open_page(["password"], "TabPilot needs password to run wf-x.")
    try:
        status, form = await anyio.to_thread.run_sync(_request, page.url, "GET")
        assert status == 200 and 'type="password" name="password"' in form and "wf-x" in form
        here = urllib.parse.urlsplit(page.url).netloc
        refused = [
            ({"password": "pw"}, {"Origin": "http://evil.example"}),
            ({"password": "pw"}, {"Host": "evil.example"}),
        ]
        for body, headers in refused:
            status, _ = await anyio.to_thread.run_sync(
                lambda b=body, h=headers: _request(page.url, "POST", b, **h)
            )
            assert status == 404, headers
        status, _ = await anyio.to_thread.run_sync(lambda: _request(page.url, "POST", {"password": ""}))
        assert status == 400 and page.values is None
        status, done = await anyio.to_thread.run_sync(
            lambda: _request(page.url, "POST", {"password": "pw"}, Origin=f"http://{here}")
        )
        assert status == 200 and "TabPilot has it" in done
        assert await page.wait(1) == {"password": "pw"}
        again, _ = await anyio.to_thread.run_sync(lambda: _request(page.url, "POST", {"password": "x"}))
        assert again == 404 and page.values == {"password": "pw"}
    finally:
        page.close()
    assert secret_page.find(page.id) is None


async def test_a_page_nobody_answers_gives_nothing() -> None:
    page = secret_page.open_page(["token"], "why")
    try:
        assert await page.wait(0.05) is None
    finally:
        page.close()
