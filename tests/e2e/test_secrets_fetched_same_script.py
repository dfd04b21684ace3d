"""Fetched equals rendered when the first page runs the very script that marks secrets on the later
ones, in real Chromium through the real MCP client. The script (inline, or a file of the site) builds
the marker's name from pieces and marks only what the first page lacks (`.late` cells), or only on
pages whose address is not the first's: the first page, rendered and fetched, reads the same, and
later pages run no script it does not. Fetching those pages would read `.late` in clear; they are to
come out `[REDACTED]` as rendering gives them, on list pages and on `follow`'s detail pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio

# Marks what it finds; on the first page there is nothing to find.
BY_CONTENT = """const a = 'data-sens', b = 'itive';
for (const e of document.querySelectorAll('.late')) e.setAttribute(a + b, '');"""
# Marks only away from the first page, whose `.late` stays plain (rendering shows it in clear too).
BY_ADDRESS = """if (!/\\/1$/.test(location.pathname))
  for (const e of document.querySelectorAll('.late')) e.setAttribute(`data-${'sens'}itive`, '');"""


async def three_pages(client: Any, first: str) -> dict[str, Any]:
    """A list's three pages (`n` and `late` of each row), paged from `first` in one extract, `n` in order."""
    await call(client, "interact", action="navigate", url=first)
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr",
        schema={"n": ".n", "late": ".late"},
        options={"paginate": {"next_selector": "#next", "max_pages": 5, "delay_ms": 0}},
    )  # fmt: skip
    assert [r["n"] for r in out["data"]] == ["N1", "N2", "N3"], out
    return out


def _list(base: str, n: int, script: str, late_on_1: bool) -> str:
    nxt = f'<a id="next" href="{base}/{n + 1}">Next</a>' if n < 3 else ""
    late = f'<td class="late">LATEPAGE_{n}</td>' if n > 1 or late_on_1 else "<td></td>"
    return f"""<!doctype html><title>List {n}</title><table>
      <tr><td class="n">N{n}</td>{late}</tr></table>{nxt}{script}"""


def _detail(n: int, script: str, late_on_1: bool) -> str:
    late = f'<p class="late">LATEDETAIL_{n}</p>' if n > 1 or late_on_1 else "<p>plain</p>"
    return f"<!doctype html><title>D{n}</title><h1>D{n}</h1>{late}{script}"


def _links(*hrefs: str) -> str:
    rows = "".join(
        f'<tr><td class="n">R{i}</td><td><a href="{h}">go</a></td></tr>' for i, h in enumerate(hrefs)
    )
    return f"<!doctype html><title>Links</title><table>{rows}</table>"


CASES = {
    "content-inline": (f"<script>{BY_CONTENT}</script>", False),
    "content-file": ('<script src="/content.js"></script>', False),
    "address-inline": (f"<script>{BY_ADDRESS}</script>", True),
}


@pytest.fixture(scope="module")
def site() -> Iterator[Logged]:
    served = {"/content.js": BY_CONTENT}
    for name, (script, late_on_1) in CASES.items():
        served |= {f"/{name}/{n}": _list(f"/{name}", n, script, late_on_1) for n in (1, 2, 3)}
        served |= {f"/{name}/d/{n}": _detail(n, script, late_on_1) for n in (1, 2, 3)}
        served[f"/{name}/details"] = _links(*(f"/{name}/d/{n}" for n in (1, 2, 3)))
    with serve_logged(served) as s:
        yield s


@pytest.mark.parametrize("case", list(CASES))
async def test_later_list_pages_marked_by_page_1s_own_script_are_redacted(
    client: Any, site: Logged, case: str
) -> None:
    out = await three_pages(client, f"{site.url}/{case}/1")
    assert [r["late"] for r in out["data"][1:]] == ["[REDACTED]", "[REDACTED]"], out
    assert "LATEPAGE_2" not in json.dumps(out) and "LATEPAGE_3" not in json.dumps(out), out


@pytest.mark.parametrize("case", list(CASES))
async def test_later_detail_pages_marked_by_the_first_ones_own_script_are_redacted(
    client: Any, site: Logged, case: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/{case}/details")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr",
        schema={"n": ".n", "link": "a | attr:href"},
        follow={"field": "link", "schema": {"h": "h1", "late": ".late"}, "concurrency": 1},
    )  # fmt: skip
    assert [r["h"] for r in out["data"]] == ["D1", "D2", "D3"], out
    assert [r["late"] for r in out["data"][1:]] == ["[REDACTED]", "[REDACTED]"], out
    assert "LATEDETAIL_2" not in json.dumps(out) and "LATEDETAIL_3" not in json.dumps(out), out
