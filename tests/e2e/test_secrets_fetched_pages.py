"""Fetched equals rendered on every page, not only the first, in real Chromium through the real MCP
client: a list whose page 1 carries no script, and whose later pages carry one (a file or inline, the
marker's name spelled out or built from pieces) that marks a column sensitive, gives [REDACTED] on those
pages as rendering would; so do `follow` detail
pages, when the first one has no script. A same-origin link that redirects to another origin on page 3,
or from a detail page, ends the run with navigation_redirect before the other site's page is read (with
or without Access-Control-Allow-Origin there); and a signed link's query stays out of the stop detail
and the follow errors when that page answers an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, call_error

pytestmark = pytest.mark.anyio

MARK = "for (const e of document.querySelectorAll('.late')) e.setAttribute('data-sensitive', '');"
# The same, with the marker's name built from pieces: no reading of the script's text finds it.
HIDDEN_MARK = "for (const e of document.querySelectorAll('.late')) e.setAttribute('data-sens' + 'itive', '');"
STOLEN = '<!doctype html><table><tr><td class="n">STOLEN</td></tr></table><h1>STOLEN</h1>'


def _list(n: int, nxt: str | None, script: str) -> str:
    """A page of a list: page 1 has no script and no late value; later ones carry `script`."""
    link = f'<a id="next" href="{nxt}">Next</a>' if nxt else ""
    late = f'<td class="late">LATEPAGE_{n}</td>' if n > 1 else "<td></td>"
    return f"""<!doctype html><title>List {n}</title><table>
      <tr><td class="n">N{n}</td>{late}</tr></table>{link}{script if n > 1 else ""}"""


def _detail(n: int, script: str) -> str:
    late = f'<p class="late">LATEDETAIL_{n}</p>' if n > 1 else "<p>plain</p>"
    return f"<!doctype html><title>D{n}</title><h1>D{n}</h1>{late}{script if n > 1 else ''}"


def _links(*hrefs: str) -> str:
    rows = "".join(
        f'<tr><td class="n">R{i}</td><td><a href="{h}">go</a></td></tr>' for i, h in enumerate(hrefs)
    )
    return f"<!doctype html><title>Links</title><table>{rows}</table>"


@pytest.fixture(scope="module")
def cors() -> Iterator[Logged]:
    """Another site that lets any origin read it."""
    with serve_logged({"/stolen": STOLEN}) as s:
        s.headers["Access-Control-Allow-Origin"] = "*"
        yield s


@pytest.fixture(scope="module")
def closed() -> Iterator[Logged]:
    """Another site that does not."""
    with serve_logged({"/stolen": STOLEN}) as s:
        yield s


@pytest.fixture(scope="module")
def pages(cors: Logged, closed: Logged) -> Iterator[Logged]:
    file, inline = '<script src="/mark.js"></script>', f"<script>{MARK}</script>"
    served = {"/mark.js": MARK}
    hidden = f"<script>{HIDDEN_MARK}</script>"
    served |= {f"/hidden/{n}": _list(n, f"/hidden/{n + 1}" if n < 3 else None, hidden) for n in (1, 2, 3)}
    for name, script in (("file", file), ("inline", inline)):
        served |= {f"/{name}/{n}": _list(n, f"/{name}/{n + 1}" if n < 3 else None, script) for n in (1, 2, 3)}
        served |= {f"/{name}/d/{n}": _detail(n, script) for n in (1, 2, 3)}
        served[f"/{name}/details"] = _links(*(f"/{name}/d/{n}" for n in (1, 2, 3)))
    for name in ("cors", "closed"):
        served |= {f"/hop-{name}/{n}": _list(n, f"/hop-{name}/{n + 1}", "") for n in (1, 2)}
        served[f"/hop-{name}/details"] = _links("/file/d/1", f"/hop-{name}/3")
    served |= {
        f"/sig/{n}": _list(n, f"/sig/{n + 1}" if n < 2 else "/sig/3?sig=SIGSECRET456&page=3", "")
        for n in (1, 2)
    }
    served["/sig/details"] = _links("/file/d/1", "/gone?sig=SIGSECRET789")
    served |= {f"/lhop/{n}": _list(n, f"/lhop/{n + 1}", "") for n in (1, 2)}
    served["/login?session=S3SSLOGIN77&next=x"] = "<!doctype html><title>Sign in</title><form></form>"
    redirects = {"/hop-cors/3": f"{cors.url}/stolen", "/hop-closed/3": f"{closed.url}/stolen"}
    redirects["/lhop/3"] = "/login?session=S3SSLOGIN77&next=x"
    with serve_logged(served, redirects) as s:
        yield s


LIST = {"n": ".n", "late": ".late"}
PAGINATE = {"next_selector": "#next", "max_pages": 5, "delay_ms": 0}


@pytest.mark.parametrize("how", ["file", "inline", "hidden"])
async def test_later_list_pages_whose_scripts_make_secrets_are_rendered(
    client: Any, pages: Logged, how: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/{how}/1")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr", schema=LIST,
        options={"paginate": PAGINATE},
    )  # fmt: skip
    assert [r["n"] for r in out["data"]] == ["N1", "N2", "N3"], out
    assert [r["late"] for r in out["data"][1:]] == ["[REDACTED]", "[REDACTED]"], out
    assert "LATEPAGE" not in json.dumps(out), out


@pytest.mark.parametrize("how", ["file", "inline"])
async def test_later_detail_pages_whose_scripts_make_secrets_are_rendered(
    client: Any, pages: Logged, how: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/{how}/details")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr",
        schema={"n": ".n", "link": "a | attr:href"},
        follow={"field": "link", "schema": {"h": "h1", "late": ".late"}, "concurrency": 1},
    )  # fmt: skip
    assert [r["h"] for r in out["data"]] == ["D1", "D2", "D3"], out
    assert [r["late"] for r in out["data"][1:]] == ["[REDACTED]", "[REDACTED]"], out
    assert "LATEDETAIL" not in json.dumps(out), out


@pytest.mark.parametrize("other", ["cors", "closed"])
async def test_a_redirect_off_the_origin_on_page_3_ends_the_run_unread(
    client: Any, pages: Logged, other: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/hop-{other}/1")
    err = await call_error(
        client, "interact", action="scrape", operation="extract", selector="tr", schema={"n": ".n"},
        options={"paginate": PAGINATE},
    )  # fmt: skip
    assert err["error"] == "navigation_redirect", err
    assert "STOLEN" not in json.dumps(err), err


@pytest.mark.parametrize("other", ["cors", "closed"])
async def test_a_detail_page_redirected_off_the_origin_ends_the_run_unread(
    client: Any, pages: Logged, other: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/hop-{other}/details")
    err = await call_error(
        client, "interact", action="scrape", operation="extract", selector="tr",
        schema={"n": ".n", "link": "a | attr:href"},
        follow={"field": "link", "schema": {"h": "h1"}, "concurrency": 1},
    )  # fmt: skip
    assert err["error"] == "navigation_redirect", err
    assert "STOLEN" not in json.dumps(err), err


async def test_signed_links_stay_out_of_errors_on_later_and_detail_pages(client: Any, pages: Logged) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/sig/1")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr", schema={"n": ".n"},
        options={"paginate": PAGINATE, "telemetry": True},  # the run's account: where the walk stopped
    )  # fmt: skip
    assert out["metadata"]["pagination_stopped"]["page"] == 3, out["metadata"]
    assert "SIGSECRET456" not in json.dumps(out), out
    await call(client, "interact", action="navigate", url=f"{pages.url}/sig/details")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr",
        schema={"n": ".n", "link": "a | attr:href"},
        follow={"field": "link", "schema": {"h": "h1"}, "concurrency": 1},
    )  # fmt: skip
    # The row keeps the link it was asked for; the error about following it does not quote its query.
    assert out["metadata"]["follow_errors"], out["metadata"]
    assert "SIGSECRET789" not in json.dumps(out["metadata"]), out["metadata"]


async def test_a_login_redirect_keeps_its_query_out_of_stops_and_errors(client: Any, pages: Logged) -> None:
    await call(client, "interact", action="navigate", url=f"{pages.url}/lhop/1")
    out = await call_error(
        client, "interact", action="scrape", operation="extract", selector="tr", schema={"n": ".n"},
        options={"paginate": PAGINATE},
    )  # fmt: skip
    assert out["error"] == "navigation_redirect", out
    assert "/login?" in json.dumps(out) and "S3SSLOGIN77" not in json.dumps(out), out
    # A workflow's navigate that lands there: its error's data names where it landed, scrubbed.
    err = await call_error(
        client, "interact", action="scrape", operation="workflow",
        steps=[{"type": "navigate", "url": f"{pages.url}/lhop/3"}],
    )  # fmt: skip
    assert err["error"] == "navigation_redirect", err
    assert "/login?" in json.dumps(err), err
    assert "S3SSLOGIN77" not in json.dumps(err), err
