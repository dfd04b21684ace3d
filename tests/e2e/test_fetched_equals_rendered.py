"""Fetched equals rendered, redaction included, in real Chromium through the real MCP client: a list
whose script marks a column sensitive after load is paged by rendering, so page 2 gives [REDACTED] as
the rendered page would; a same-origin next link that redirects to another origin (which allows it
with Access-Control-Allow-Origin: *) ends the run with navigation_redirect before it is read; and a
next link's signed query never shows in pagination_stopped.detail when the next page answers 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, call_error

pytestmark = pytest.mark.anyio


def _list(n: int, nxt: str | None) -> str:
    """Page 1 reads the same fetched or rendered (its late value sits outside the rows); later pages
    carry it in their rows. The page's script marks every `.late` sensitive after load."""
    link = f'<a id="next" href="{nxt}">Next</a>' if nxt else ""
    late = f'<td class="late">LATELIST_{n}</td>' if n > 1 else "<td></td>"
    outside = f'<p class="late">LATELIST_{n}</p>' if n == 1 else ""
    mark = "for (const e of document.querySelectorAll('.late')) e.setAttribute('data-sensitive', '');"
    return f"""<!doctype html><title>List {n}</title>{outside}<table>
      <tr><td class="n">N{n}</td>{late}</tr></table>{link}<script>{mark}</script>"""


@pytest.fixture(scope="module")
def other() -> Iterator[Logged]:
    with serve_logged({"/stolen": '<!doctype html><table><tr><td class="n">STOLEN</td></tr></table>'}) as s:
        s.headers["Access-Control-Allow-Origin"] = "*"
        yield s


@pytest.fixture(scope="module")
def pages(other: Logged) -> Iterator[Logged]:
    served = {
        "/late/1": _list(1, "/late/2"),
        "/late/2": _list(2, "/late/3"),
        "/late/3": _list(3, None),
        "/hop/1": '<!doctype html><table><tr><td class="n">H1</td></tr></table>'
        '<a id="next" href="/hop/2">n</a>',
        "/sig/1": '<!doctype html><table><tr><td class="n">S1</td></tr></table>'
        '<a id="next" href="/sig/2?sig=SIGSECRET123&page=2">n</a>',
    }
    with serve_logged(served, {"/hop/2": f"{other.url}/stolen"}) as s:
        yield s


SCHEMA = {"n": ".n", "late": ".late"}
PAGINATE = {"next_selector": "#next", "max_pages": 5, "delay_ms": 0}


async def test_script_made_secrets_page_by_rendering(client: Any, pages: Logged) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/late/1")
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="tr",
        schema=SCHEMA,
        options={"paginate": PAGINATE, "telemetry": True},
    )
    assert [r["n"] for r in out["data"]] == ["N1", "N2", "N3"], out
    assert [r["late"] for r in out["data"][1:]] == ["[REDACTED]", "[REDACTED]"], out
    assert out["metadata"].get("pagination_mode") != "fetch", out["metadata"]
    assert "LATELIST" not in json.dumps(out)


async def test_a_redirect_to_another_origin_ends_the_run_unread(client: Any, pages: Logged) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/hop/1")
    err = await call_error(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="tr",
        schema={"n": ".n"},
        options={"paginate": PAGINATE},
    )
    assert err["error"] == "navigation_redirect", err
    assert "STOLEN" not in json.dumps(err)


async def test_a_signed_next_link_stays_out_of_the_stop_detail(client: Any, pages: Logged) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/sig/1")
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="tr",
        schema={"n": ".n"},
        options={"paginate": PAGINATE, "telemetry": True},
    )
    assert "SIGSECRET123" not in json.dumps(out), out
    assert out["metadata"].get("pagination_stopped"), out
