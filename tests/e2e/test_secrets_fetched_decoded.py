"""Fetched equals rendered when the list's own script builds the marker's name at run time from no
literal that spells it (decoded from base64) and, on the first page, also takes away a secret the
markup marked (a one-time notice): page 1 shows as many secrets rendered as its markup marks, yet its
script made one. The page agent counts every element it ever judged secret in the document, so page 1
fetched is found to differ from page 1 rendered and the later pages are rendered: their `.late` cells
come out `[REDACTED]`, never in clear. Real Chromium, the real MCP client."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcp import Client

from tests.e2e.test_secrets_fetched_same_script import three_pages
from tests.support.logged import Logged, serve_logged

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SCRIPT = """<script>
  const marker = atob('ZGF0YS1zZW5zaXRpdmU=');
  document.getElementById('notice')?.remove();
  for (const e of document.querySelectorAll('.late')) e.setAttribute(marker, '');
</script>"""


def _list(n: int) -> str:
    nxt = f'<a id="next" href="/list/{n + 1}">Next</a>' if n < 3 else ""
    notice = '<p id="notice" data-sensitive>ONETIME_1</p>' if n == 1 else ""
    return f"""<!doctype html><title>List {n}</title>{notice}<table>
      <tr><td class="n">N{n}</td><td class="late">LATEPAGE_{n}</td></tr></table>{nxt}{SCRIPT}"""


@pytest.fixture(scope="module")
def site() -> Iterator[Logged]:
    with serve_logged({f"/list/{n}": _list(n) for n in (1, 2, 3)}) as s:
        yield s


async def test_later_pages_marked_by_a_decoded_name_are_redacted(client: Client, site: Logged) -> None:
    out = await three_pages(client, f"{site.url}/list/1")
    assert [r["late"] for r in out["data"]] == ["[REDACTED]"] * 3, out
    for n in (1, 2, 3):
        assert f"LATEPAGE_{n}" not in json.dumps(out), out
