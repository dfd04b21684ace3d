"""`follow`'s check in real Chromium, through the real MCP client: a first detail page whose served HTML
holds nothing that runs or moves, served as UTF-8, is read fetched alone (the site sees one request for
it, no tab opens for it); a script, a handler attribute, a noscript, a frame or a refresh (tag or header)
anywhere on it and it is rendered as well (two requests), and the reads agree. (Which charsets read
alike: tests/unit/extension/test_script_names_js.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = 3
LIST = "".join(f'<tr><td><a href="/d/{n}">{n}</a></td></tr>' for n in range(1, ROWS + 1))
EXTRAS = {
    "inert": "",
    "inert, not ASCII": "<p>Zoë</p>",  # served as UTF-8: read as the browser reads it
    "script": "<script>window.seen = true;</script>",
    "handler": '<img alt="" src="data:," onerror="void 0">',
    "noscript": "<noscript><p>Scripts are off</p></noscript>",
    "frame": '<iframe src="about:blank" title="x"></iframe>',
    "refresh": '<meta http-equiv="Refresh" content="3600">',
}


def _detail(n: int, extra: str) -> str:
    return f'<!doctype html><title>{n}</title><main class="item"><b class="owner">o{n}</b>{extra}</main>'


@pytest.fixture
def served() -> Iterator[Logged]:
    with serve_logged({"/list": f"<!doctype html><title>List</title><table>{LIST}</table>"}) as s:
        yield s


async def _follow(client: Any, site: Logged, extra: str) -> dict[str, Any]:
    site.pages |= {f"/d/{n}": _detail(n, extra) for n in range(1, ROWS + 1)}
    await call(client, "interact", action="navigate", url=f"{site.url}/list")
    out = await scrape(
        client, operation="extract", selector="tr", schema={"n": "td a", "link": "td a | url"},
        follow={"field": "link", "schema": {"owner": ".owner"}, "selector": "main.item", "concurrency": 2},
    )  # fmt: skip
    assert [(r["n"], r["owner"]) for r in out["data"]] == [(str(n), f"o{n}") for n in range(1, ROWS + 1)]
    assert out["metadata"]["follow"]["mode"] == "fetch", out["metadata"]
    return out


@pytest.mark.parametrize("kind", EXTRAS)
async def test_only_a_page_that_runs_or_moves_nothing_skips_its_render(
    client: Any, served: Logged, kind: str
) -> None:
    await _follow(client, served, EXTRAS[kind])
    reads = [served.gets(f"/d/{n}") for n in range(1, ROWS + 1)]
    assert reads == ([1, 1, 1] if kind.startswith("inert") else [2, 1, 1]), reads


async def test_a_refresh_header_makes_the_page_rendered(client: Any, served: Logged) -> None:
    served.headers["Refresh"] = "3600"
    await _follow(client, served, "")
    assert served.gets("/d/1") == 2
