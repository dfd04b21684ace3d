"""Complete means proven, in real Chromium through MCP: a walk says why the list ended
(`metadata.complete_because`), or answers status partial with the reason and the option that reads on
(`metadata.partial_because`); a one-page extract of a list that goes on says so (`metadata.more`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabpilot.demo.server import Site, serve_site
from tests.support.mcp_client import Client, call

pytestmark = pytest.mark.anyio

ROWS = "table.list tbody tr"
SCHEMA = {"key": "td.key"}


def _page(keys: list[str], nav: str, drawn: bool = False) -> str:
    rows = "".join(f'<tr><td class="key">{k}</td></tr>' for k in keys)
    # Rows a script draws: the served HTML has none, so the walk clicks through the tab.
    body, script = (
        ("", f"<script>document.querySelector('tbody').innerHTML = '{rows}';</script>")
        if drawn
        else (rows, "")
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>List</title></head><body>'
        f'<table class="list"><tbody>{body}</tbody></table><nav>{nav}</nav>{script}</body></html>'
    )


def _paginator(stem: str, here: int, last: int, next_class: str = "next") -> str:
    """Django's admin paginator: the current page a span, the others links, a next link but on the last."""
    numbers = " ".join(
        f'<span class="this-page">{n}</span>' if n == here else f'<a href="{stem}-{n}.html">{n}</a>'
        for n in range(1, last + 1)
    )
    after = f' <a class="{next_class}" href="{stem}-{here + 1}.html">next</a>' if here < last else ""
    return f'<p class="paginator">{numbers}{after}</p>'


def _bootstrap(stem: str, here: int, last: int) -> str:
    """Bootstrap's pager (Flask-Admin's): every number a link in an `li`, the current one's `li` active."""
    items = "".join(
        f'<li class="active"><a href="#">{n}</a></li>'
        if n == here
        else f'<li><a href="{stem}-{n}.html">{n}</a></li>'
        for n in range(1, last + 1)
    )
    return f'<ul class="pagination">{items}</ul>'


def _keys(stem: str, page: int) -> list[str]:
    return [f"{stem[0].upper()}-{page}{i}" for i in range(2)]


def _write(root: Path) -> None:
    files: dict[str, str] = {}
    for n in (1, 2, 3):  # a next link on pages 1 and 2, none on page 3
        nav = f'<a class="next" href="plain-{n + 1}.html">Next</a>' if n < 3 else ""
        files[f"plain-{n}.html"] = _page(_keys("plain", n), nav)
    # Page 2's Next is there, disabled (a Bootstrap-like pager).
    files["dis-1.html"] = _page(_keys("dis", 1), '<a class="next" href="dis-2.html">Next</a>')
    files["dis-2.html"] = _page(_keys("dis", 2), '<a class="next disabled" aria-disabled="true">Next</a>')
    for n in (1, 2, 3):  # a numbered pager: page 3 is its last
        files[f"num-{n}.html"] = _page(_keys("num", n), _paginator("num", n, 3))
    for n in (1, 2, 3):  # numbers only, in list items
        files[f"boot-{n}.html"] = _page(_keys("boot", n), _bootstrap("boot", n, 3))
    for n in (1, 2, 3, 4):  # the next link's class changes on page 2: next_selector misses it there
        files[f"miss-{n}.html"] = _page(
            _keys("miss", n), _paginator("miss", n, 4, "next" if n == 1 else "nxt")
        )
    for n in (1, 2, 3, 4):  # the same, drawn by a script: read in the tab
        nav = _paginator("drawn", n, 4, "next" if n == 1 else "nxt")
        files[f"drawn-{n}.html"] = _page(_keys("drawn", n), nav, drawn=True)
    for name, html in files.items():
        (root / name).write_text(html)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("stops")
    _write(root)
    with serve_site(root) as running:
        yield running


async def _walk(client: Client, url: str, **options: Any) -> dict[str, Any]:
    await call(client, "interact", action="navigate", url=url)
    paginate = {"next_selector": "a.next", "max_pages": 10} | options.pop("paginate", {})
    arguments = {"selector": ROWS, "schema": SCHEMA, "options": {"paginate": paginate, **options}}
    return await call(client, "interact", action="scrape", operation="extract", **arguments)


def _keys_of(out: dict[str, Any]) -> list[str]:
    return [r["key"] for r in out["data"]]


async def test_no_next_link_on_the_last_page_is_next_absent(client: Client, site: Site) -> None:
    out = await _walk(client, f"{site.url}/plain-1.html")
    assert _keys_of(out) == [k for n in (1, 2, 3) for k in _keys("plain", n)]
    assert (out["status"], out["metadata"].get("complete_because")) == ("complete", "next_absent"), out
    assert "partial_because" not in out["metadata"]


async def test_a_disabled_next_is_next_disabled(client: Client, site: Site) -> None:
    out = await _walk(client, f"{site.url}/dis-1.html")
    assert _keys_of(out) == _keys("dis", 1) + _keys("dis", 2)
    assert (out["status"], out["metadata"].get("complete_because")) == ("complete", "next_disabled"), out


async def test_the_numbered_pager_s_last_page_is_last_numbered_page(client: Client, site: Site) -> None:
    out = await _walk(client, f"{site.url}/num-1.html")
    assert _keys_of(out) == [k for n in (1, 2, 3) for k in _keys("num", n)]
    assert (out["status"], out["metadata"].get("complete_because")) == ("complete", "last_numbered_page"), out


async def test_a_next_selector_that_misses_while_the_pager_goes_on_is_partial(
    client: Client, site: Site
) -> None:
    out = await _walk(client, f"{site.url}/miss-1.html")
    assert _keys_of(out) == _keys("miss", 1) + _keys("miss", 2)
    assert out["status"] == "partial" and "complete_because" not in out["metadata"], out
    why = out["metadata"]["partial_because"]
    assert why["reason"] == "no_next" and why["hint"]["option"] == "options.paginate.next_selector"


async def test_in_the_tab_the_hint_names_the_control_that_leads_on(client: Client, site: Site) -> None:
    out = await _walk(client, f"{site.url}/drawn-1.html", telemetry=True)
    assert out["metadata"]["pagination_mode"] == "navigate", out["metadata"]
    assert _keys_of(out) == _keys("drawn", 1) + _keys("drawn", 2)
    why = out["metadata"]["partial_because"]
    assert out["status"] == "partial" and why["reason"] == "no_next", out
    assert why["hint"]["value"] == "span.this-page + a", why
    # The control it names walks every page, to the pager's last.
    out = await _walk(client, f"{site.url}/drawn-1.html", paginate={"next_selector": why["hint"]["value"]})
    assert _keys_of(out) == [k for n in (1, 2, 3, 4) for k in _keys("drawn", n)]
    assert (out["status"], out["metadata"].get("complete_because")) == ("complete", "last_numbered_page"), out


async def test_max_pages_is_partial_with_the_option_to_read_on(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/plain-1.html")
    arguments = {
        "selector": ROWS,
        "schema": SCHEMA,
        "options": {"paginate": {"next_selector": "a.next", "max_pages": 2}},
    }
    started = await call(client, "interact", action="scrape", operation="extract", wait_ms=0, **arguments)
    out = started
    if out["status"] in ("queued", "running"):  # the result as observe command_result hands it over
        cid = started["correlation_id"]
        out = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=20_000)
    assert _keys_of(out) == _keys("plain", 1) + _keys("plain", 2)
    assert out["status"] == "partial", out
    why = out["metadata"]["partial_because"]
    assert why["reason"] == "max_pages"
    assert (why["hint"]["option"], why["hint"]["value"]) == ("options.paginate.max_pages", 4)
    # Read on as the hint says: every row, and the proof of the end.
    out = await _walk(client, f"{site.url}/plain-1.html", paginate={"max_pages": why["hint"]["value"]})
    assert len(out["data"]) == 6 and out["metadata"]["complete_because"] == "next_absent"


async def test_a_limit_reached_before_the_end_is_partial(client: Client, site: Site) -> None:
    out = await _walk(client, f"{site.url}/plain-1.html", limit=3)
    assert _keys_of(out) == [*_keys("plain", 1), _keys("plain", 2)[0]]
    assert out["status"] == "partial" and out["metadata"]["partial_because"]["reason"] == "limit", out
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.limit"
    # A limit that falls on the last page: the end was seen there too.
    out = await _walk(client, f"{site.url}/plain-1.html", limit=6)
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "next_absent"), out


async def test_a_one_page_extract_of_a_list_that_goes_on_says_how_to_read_on(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/num-1.html")
    out = await call(client, "interact", action="scrape", operation="extract", selector=ROWS, schema=SCHEMA)
    assert out["status"] == "complete" and _keys_of(out) == _keys("num", 1)
    more = out["metadata"]["more"]
    assert more["seen"] == "pager" and more["hint"]["option"] == "options.paginate.next_selector", more
    # The selector it proposes reads every page.
    selector = more["hint"]["value"]
    out = await _walk(client, f"{site.url}/num-1.html", paginate={"next_selector": selector})
    assert _keys_of(out) == [k for n in (1, 2, 3) for k in _keys("num", n)]
    assert out["status"] == "complete", out
    await call(client, "interact", action="navigate", url=f"{site.url}/plain-3.html")
    out = await call(client, "interact", action="scrape", operation="extract", selector=ROWS, schema=SCHEMA)
    assert "more" not in out["metadata"], "the last page: nothing goes on"


async def test_a_bootstrap_pager_s_next_page_is_named_by_the_active_item(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/boot-1.html")
    out = await call(client, "interact", action="scrape", operation="extract", selector=ROWS, schema=SCHEMA)
    hint = out["metadata"]["more"]["hint"]
    assert hint["value"] == "li.active + li a", hint
    out = await _walk(client, f"{site.url}/boot-1.html", paginate={"next_selector": hint["value"]})
    assert _keys_of(out) == [k for n in (1, 2, 3) for k in _keys("boot", n)]
    assert out["status"] == "complete", out
