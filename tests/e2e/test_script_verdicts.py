"""The worker keeps what the page agent found in a list's script files (worker/lib/script_verdicts.js),
in real Chromium through the real MCP client: keyed by the file's text, not its URL, so when the file
behind the same URL starts marking a column sensitive, the next run's fetched pages are refused and
rendered ([REDACTED], as rendering shows them), and the run after it, answered from the verdict kept,
still is. A file the site's pages loaded is known by the headers the worker saw it load with, without
a request of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_secrets_fetched_same_script import three_pages
from tests.support.logged import Logged, serve_logged

pytestmark = pytest.mark.anyio

HARMLESS = "window.listReady = true;"
MARK = "for (const e of document.querySelectorAll('.late')) e.setAttribute('data-sensitive', '');"


def _list(n: int) -> str:
    """A page of the list: every page loads /lib.js; page 1's rows carry no late value."""
    link = f'<a id="next" href="/v/{n + 1}">Next</a>' if n < 3 else ""
    late = f'<td class="late">LATEV_{n}</td>' if n > 1 else "<td></td>"
    return f"""<!doctype html><title>List {n}</title><table>
      <tr><td class="n">N{n}</td>{late}</tr></table>{link}<script src="/lib.js"></script>"""


@pytest.fixture(scope="module")
def pages() -> Iterator[Logged]:
    # Served no-store (serve_logged): a changed /lib.js is read afresh, as after a deploy.
    with serve_logged({"/lib.js": HARMLESS} | {f"/v/{n}": _list(n) for n in (1, 2, 3)}) as s:
        yield s


async def _late(client: Any, pages: Logged) -> list[Any]:
    out = await three_pages(client, f"{pages.url}/v/1")
    return [r["late"] for r in out["data"][1:]]


async def test_a_script_file_that_changes_is_read_again(client: Any, pages: Logged) -> None:
    assert await _late(client, pages) == ["LATEV_2", "LATEV_3"]
    assert await _late(client, pages) == ["LATEV_2", "LATEV_3"], "a harmless file stays harmless"
    pages.pages["/lib.js"] = MARK
    try:
        for _ in range(2):  # read, then answered from the verdict kept
            late = await _late(client, pages)
            assert late == ["[REDACTED]", "[REDACTED]"], late
    finally:
        pages.pages["/lib.js"] = HARMLESS
    assert "LATEV" not in json.dumps(late)


async def test_a_file_known_by_its_validator_is_read_when_it_changes(client: Any, pages: Logged) -> None:
    # A strong validator lets a file met again go unread (its verdict kept under that cache entry):
    # a new ETag is a new file, even at the same length and Last-Modified.
    pages.pages["/lib.js"] = HARMLESS.ljust(len(MARK))
    pages.headers.update({"ETag": '"v1"', "Last-Modified": "Fri, 01 Jan 2021 00:00:00 GMT"})
    try:
        for run in range(2):  # read, then answered from the entry's verdict
            before = pages.gets("/lib.js")
            assert await _late(client, pages) == ["LATEV_2", "LATEV_3"]
            # The second run's check knows the file by the headers the worker saw the tab load it with:
            # the render's own load is the only request (no-store: a cache read would be another).
            assert run == 0 or pages.gets("/lib.js") - before == 1, pages.seen()
        pages.pages["/lib.js"] = MARK
        pages.headers["ETag"] = '"v2"'
        for _ in range(2):
            late = await _late(client, pages)
            assert late == ["[REDACTED]", "[REDACTED]"], late
    finally:
        pages.pages["/lib.js"] = HARMLESS
        pages.headers.clear()
