"""Link pagination by fetch-and-parse, counted at the server: page 1's check taken from the HTTP cache
when the page may be stored, the pages a numbered pager links fetched ahead, and never a request for a
page past the last one (real Chromium, the real extension, through MCP)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from tests.support.counted import Counted, serve_counted
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = "table.list tbody tr"
SCHEMA = {"key": "td.key"}


def _list(name: str, pages: int, *, window: int, last_link: bool) -> dict[str, str]:
    """`/NAME?page=N`, N = 1..pages, three rows each, a pager numbering the pages up to `window` away
    (and the last page when `last_link`), and a next link on all but the last."""
    out: dict[str, str] = {}
    for n in range(1, pages + 1):
        shown = [k for k in range(max(1, n - window), min(pages, n + window) + 1)]
        if last_link and pages not in shown:
            shown.append(pages)
        numbers = "".join(
            f"<span>{k}</span>" if k == n else f'<a href="/{name}?page={k}">{k}</a>' for k in shown
        )
        nxt = f'<a class="next" href="/{name}?page={n + 1}">Next</a>' if n < pages else ""
        rows = "".join(f'<tr><td class="key">{name}-{n}-{i}</td></tr>' for i in range(3))
        out[f"/{name}?page={n}"] = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name} {n}</title></head>'
            f'<body><table class="list"><tbody>{rows}</tbody></table>'
            f'<nav class="pager">{numbers} {nxt}</nav></body></html>'
        )
    return out


def _keys(name: str, pages: int) -> list[str]:
    return [f"{name}-{n}-{i}" for n in range(1, pages + 1) for i in range(3)]


def _start(*names: str) -> str:
    links = "".join(f'<a id="{n}" href="/{n}?page=1">{n}</a>' for n in names)
    head = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Start</title></head>'
    return f"{head}<body>{links}</body></html>"


@pytest.fixture(scope="module")
def stored() -> Iterator[Counted]:
    """Pages a browser may keep (max-age): page 1 rendered is in the HTTP cache."""
    pages = {"/start.html": _start("clicked", "typed")}
    pages |= _list("clicked", 12, window=2, last_link=True) | _list("typed", 5, window=2, last_link=True)
    with serve_counted(pages, cache_control="max-age=600") as running:
        yield running


@pytest.fixture(scope="module")
def unstored() -> Iterator[Counted]:
    """Pages no cache may keep (no-store); the pager slides and never links the last page."""
    with serve_counted(_list("slide", 9, window=2, last_link=False)) as running:
        yield running


async def _walk(
    client: Client, site: Counted, name: str, *, by_click: bool = False
) -> tuple[dict[str, Any], dict[str, int]]:
    """Open `/NAME?page=1` (by navigate, or by a click on the start page's link), scrape every page;
    the result and the requests of `/NAME` pages counted at the server (not the favicon's)."""
    if by_click:
        await call(client, "interact", action="navigate", url=f"{site.url}/start.html")
        await call(client, "interact", action="click", selector=f"#{name}")
    else:
        await call(client, "interact", action="navigate", url=f"{site.url}/{name}?page=1")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        options={"paginate": {"next_selector": "a.next", "max_pages": 20}, "telemetry": True},
    )
    assert out["metadata"]["pagination_mode"] == "fetch", out["metadata"]
    return out, {k: v for k, v in site.asked.items() if k.startswith(f"/{name}?")}


async def test_page_1_s_check_comes_from_the_cache_and_no_page_is_asked_twice(
    client: Client, stored: Counted
) -> None:
    out, asked = await _walk(client, stored, "clicked", by_click=True)
    assert [r["key"] for r in out["data"]] == _keys("clicked", 12)
    meta = out["metadata"]
    assert meta["pagination_stopped"]["reason"] == "no_next", meta
    assert meta["url"] == f"{stored.url}/clicked?page=1", "the tab stays on page 1"
    # Page 1 once (rendered; the check read the cached copy), every other page once, none past page 12.
    assert asked == {f"/clicked?page={n}": 1 for n in range(1, 13)}, asked


async def test_a_page_loaded_by_navigate_is_checked_from_the_cache_when_its_key_matches(
    client: Client, stored: Counted
) -> None:
    out, asked = await _walk(client, stored, "typed")
    assert [r["key"] for r in out["data"]] == _keys("typed", 5)
    assert {k: v for k, v in asked.items() if k != "/typed?page=1"} == {
        f"/typed?page={n}": 1 for n in range(2, 6)
    }
    # A load the browser itself started (tabs.update: no initiator) is cached under another key than
    # the page's own fetch, so the check may download page 1 again (Chromium 156 does), never more.
    assert asked["/typed?page=1"] in (1, 2), asked


async def test_a_sliding_pager_is_read_to_its_end_and_never_past_it(
    client: Client, unstored: Counted
) -> None:
    out, asked = await _walk(client, unstored, "slide")
    assert [r["key"] for r in out["data"]] == _keys("slide", 9)
    # no-store: the check downloads page 1 again; every later page once; page 10 never.
    assert asked == {"/slide?page=1": 2} | {f"/slide?page={n}": 1 for n in range(2, 10)}, asked
