"""Link pagination by fetch-and-parse in real Chromium, through MCP: what falls back to the tab (rows
drawn by a script, a next link to another site), what stops (a 404, a session that ends) and what
never leaves the page (secrets in fetched pages). The pages are written per test run, since some must
name the server's own port."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER, Site, serve_site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, scrape, scrape_error
from tests.support.popup import set_sites

pytestmark = pytest.mark.anyio

ROWS = "table.list tbody tr"
SCHEMA = {"key": "td.key"}
NEXT = {"next_selector": "a.next", "max_pages": 10}


def _page(rows: str, next_href: str | None = None, head: str = "", tail: str = "") -> str:
    nav = f'<nav><a class="next" href="{next_href}">Next</a></nav>' if next_href else "<nav></nav>"
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>List</title>{head}</head><body>'
        f'<table class="list"><tbody>{rows}</tbody></table>{nav}{tail}</body></html>'
    )


def _rows(*keys: str) -> str:
    return "".join(f'<tr><td class="key">{k}</td></tr>' for k in keys)


# A row with secrets: a password input's value, a [data-sensitive] token, a card number in plain text.
def _secret_rows(page: int) -> str:
    return "".join(
        f'<tr><td class="key">S-{page}{i}</td>'
        f'<td class="pw"><input type="password" value="hunter-{page}{i}-pass"></td>'
        f'<td class="token" data-sensitive>tok-{page}{i}-zyxw</td>'
        f'<td class="note">card 4111 1111 1111 1111</td></tr>'
        for i in range(2)
    )


def _write(root: Path, port_url: str) -> None:
    other = port_url.replace("127.0.0.1", "localhost")
    files = {
        # Rows drawn by a script: the HTML the server sends has none.
        "drawn-1.html": _page(
            "",
            "drawn-2.html",
            tail="<script>document.querySelector('tbody').innerHTML = "
            '\'<tr><td class="key">D-1</td></tr><tr><td class="key">D-2</td></tr>\';</script>',
        ),
        "drawn-2.html": _page(
            "",
            tail="<script>document.querySelector('tbody').innerHTML = "
            "'<tr><td class=\"key\">D-3</td></tr>';</script>",
        ),
        # Page 2's next link is on another site (the same server as localhost).
        "away-1.html": _page(_rows("A-1", "A-2"), "away-2.html"),
        "away-2.html": _page(_rows("A-3"), f"{other}/away-3.html"),
        "away-3.html": _page(_rows("A-4")),
        # Secrets on every page; page 4 does not exist (404).
        "secret-1.html": _page(_secret_rows(1), "secret-2.html"),
        "secret-2.html": _page(_secret_rows(2), "secret-3.html"),
        "secret-3.html": _page(_secret_rows(3), "secret-4.html"),
        # Behind the login: the next link ends the session on the way (as a server-side expiry would).
        "private/ledger-1.html": _page(_rows("P-1", "P-2"), "ledger-2.html"),
        "private/ledger-2.html": _page(_rows("P-3"), "/logout?then=/private/ledger-3.html"),
        "private/ledger-3.html": _page(_rows("P-4")),
        "login.html": (pages.PAGES / "login.html").read_text(),
        # The next control is a GET form's button (the static server ignores the query).
        "form-1.html": _page(
            _rows("F-1", "F-2"),
            tail='<form method="get" action="form-2.html"><input type="hidden" name="p" value="2">'
            '<button class="next">Next</button></form>',
        ),
        "form-2.html": _page(_rows("F-3")),
    }
    for name, html in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("fetchpages")
    with serve_site(root) as running:
        _write(root, running.url)
        yield running


async def _extract(client: object, url: str, schema: dict[str, str] = SCHEMA) -> dict[str, object]:
    await call(client, "interact", action="navigate", url=url)  # type: ignore[arg-type]
    # With the run's account (how it paged, where the tab ended), which the tests read.
    return {
        "operation": "extract",
        "selector": ROWS,
        "schema": schema,
        "options": {"paginate": NEXT, "telemetry": True},
    }


async def test_rows_drawn_by_a_script_are_read_in_the_tab(client: Client, site: Site) -> None:
    out = await scrape(client, **await _extract(client, f"{site.url}/drawn-1.html"))
    assert [r["key"] for r in out["data"]] == ["D-1", "D-2", "D-3"]
    meta = out["metadata"]
    assert meta["pagination_mode"] == "navigate" and "other rows" in meta["pagination_note"], meta
    assert meta["url"] == f"{site.url}/drawn-2.html", "the tab followed the pages"


async def test_a_404_mid_way_stops_with_the_rows_and_secrets_never_leave_fetched_pages(
    client: Client, site: Site
) -> None:
    schema = {"key": "td.key", "pw": "td.pw input | attr:value", "token": "td.token", "note": "td.note"}
    arguments = await _extract(client, f"{site.url}/secret-1.html", schema)
    out = await call(client, "interact", action="scrape", **arguments)
    tabs = await call(client, "observe", what="tabs")
    assert [r["key"] for r in out["data"]] == ["S-10", "S-11", "S-20", "S-21", "S-30", "S-31"]
    assert {r["pw"] for r in out["data"]} == {"[REDACTED]"}
    assert {r["token"] for r in out["data"]} == {"[REDACTED]"}
    assert {r["note"] for r in out["data"]} == {"card [REDACTED]"}
    text = json.dumps(out)
    for secret in ("hunter-", "-pass", "tok-", "zyxw", "4111"):
        assert secret not in text
    meta = out["metadata"]
    assert meta["pagination_mode"] == "fetch"
    stop = meta["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("http_error", 4) and "404" in stop["detail"]
    assert out["status"] == "partial" and meta["partial_because"]["reason"] == "http_error", out
    # The tab stayed on page 1.
    assert [t["url"] for t in tabs["tabs"] if t.get("active")] == [f"{site.url}/secret-1.html"]


async def test_a_session_that_ends_on_a_fetched_page_stops_as_a_login_redirect(
    client: Client, site: Site
) -> None:
    out = await scrape_error(
        client,
        operation="workflow",
        steps=[
            {"type": "navigate", "url": f"{site.url}/private/ledger-1.html", "allow_redirect": True},
            {"type": "fill", "selector": "input[name=username]", "value": DEMO_USER},
            {"type": "fill", "selector": "input[name=password]", "value": DEMO_PASSWORD},
            {"type": "click", "selector": "form.login button"},
            {"type": "extract", "selector": ROWS, "schema": SCHEMA, "paginate": NEXT},
        ],
    )
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT, out
    assert [r["key"] for r in out["data"]] == ["P-1", "P-2", "P-3"]
    meta = out["metadata"]
    assert meta["pagination_mode"] == "fetch"
    assert (meta["pagination_stopped"]["reason"], meta["pagination_stopped"]["page"]) == ("redirected", 3)


async def test_a_next_link_to_another_site_from_a_fetched_page_is_refused_with_the_rows(
    driver: webdriver.Chrome, pilot_on: None, module_client: Client, site: Site
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    set_sites(driver, only=[urlsplit(site.url).netloc])
    try:
        out = await scrape_error(client, **await _extract(client, f"{site.url}/away-1.html"))
    finally:
        set_sites(driver, only=None)
    assert out["error"] == ErrorCode.SITE_NOT_ALLOWED, out
    assert [r["key"] for r in out["data"]] == ["A-1", "A-2", "A-3"]


async def test_a_get_form_s_next_button_is_fetched_too(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/form-1.html")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        options={"paginate": {"next_selector": "button.next"}, "telemetry": True},
    )
    assert [r["key"] for r in out["data"]] == ["F-1", "F-2", "F-3"]
    assert out["metadata"]["pagination_mode"] == "fetch", out["metadata"]
    assert out["metadata"]["url"] == f"{site.url}/form-1.html"
