"""`follow`'s check against a scripted extension: a first detail page whose served HTML holds nothing
that runs or moves (the page agent's `inert`) is not rendered, its fetched read decides; one that holds
a script, lacks what the read waits for, or was redirected is rendered and compared as always."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.wire import messages as m
from tests.unit.engine.test_follow import fetched, fetched_page, fetching, merged, opened, row, scrape

pytestmark = pytest.mark.anyio

ROWS = [[row(n) for n in range(1, 5)]]


def inert_page(c: Any) -> dict[str, Any]:
    return fetched_page(c) | {"inert": True}


async def test_an_inert_first_page_is_not_rendered() -> None:
    browser = fetching(ROWS, inert_page)
    out = await scrape(browser)
    assert out["data"] == [merged(n) for n in range(1, 5)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4}
    assert opened(browser) == []
    assert sorted(fetched(browser)) == sorted(r[1] for r in ROWS[0]), "each page fetched once"


async def test_a_first_page_that_runs_something_is_rendered_and_compared() -> None:
    browser = fetching(ROWS)  # no `inert`: a script, a frame, a handler...
    out = await scrape(browser)
    assert out["data"] == [merged(n) for n in range(1, 5)]
    assert out["metadata"]["follow"]["mode"] == "fetch"
    assert opened(browser) == [ROWS[0][0][1]]


async def test_an_inert_page_without_what_the_read_waits_for_is_rendered() -> None:
    def page(c: m.FetchExtract) -> dict[str, Any]:
        return inert_page(c) | {"rows": [[*fetched_page(c)["rows"][0], None]]}  # the probe found nothing

    browser = fetching(ROWS, page)
    out = await scrape(browser, follow={"field": "link", "schema": {"owner": ".owner"}, "wait_for": ".late"})
    assert out["metadata"]["follow"]["mode"] == "tab"
    assert opened(browser)[0] == ROWS[0][0][1]


async def test_an_inert_page_reached_by_a_redirect_is_rendered() -> None:
    def page(c: m.FetchExtract) -> dict[str, Any]:
        return inert_page(c) | {"url": c.url + "?moved", "redirected": True}

    browser = fetching(ROWS, page)
    await scrape(browser)
    assert opened(browser)[0] == ROWS[0][0][1]
