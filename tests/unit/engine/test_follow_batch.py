"""Detail pages fetched several to a command (engine/detail_batch.py), against a scripted extension: the
pages whose places open together go in one `fetch_details` (as many as the site's places at most), each
read once and merged into its row, every command sharing the run's places at the site (never more than
the concurrency); a page's own failure costs that page alone (a 503 is read once more, a 404 is its
row's error); a page the page agent left out of a big answer is asked for alone; an extension without
fetch_details gets every page alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.engine.test_follow import fetched, fetched_page, fetching, merged, row, scrape
from tests.unit.engine.test_follow_retry import busy, failing

pytestmark = pytest.mark.anyio

ROWS = [[row(n) for n in range(1, 13)]]
FOLLOW = {"field": "link", "schema": {"owner": ".owner", "points": ".points | number"}, "concurrency": 6}


def together(browser: Any, deferred: frozenset[str] = frozenset(), placed: bool = True) -> list[list[str]]:
    """A fetch_details for `browser`, answering each page as its fetch_extract handler would (with the
    time its request took when `placed`: the page holds the places); the batches it was asked for."""
    batches: list[list[str]] = []

    def answer(c: m.FetchDetails) -> dict[str, Any]:
        batches.append(list(c.urls))
        assert c.pool and c.in_flight is not None and 1 <= c.in_flight <= FOLLOW["concurrency"]
        # Room to wait for a place behind the pages asked for before: a page's time per place each.
        assert c.fetch_ms is not None and c.timeout_ms >= 2 * c.fetch_ms and c.timeout_ms % c.fetch_ms == 0
        pages: list[dict[str, Any]] = []
        for url in c.urls:
            if url in deferred and len(c.urls) > 1:  # as the page agent: a page asked for alone never is
                pages.append({"deferred": True})
                continue
            one = m.FetchExtract(id=0, url=url, fields=c.fields, selector=c.selector, limit=c.limit)
            got = browser.handlers["fetch_extract"](one)
            if isinstance(got, TabPilotError):
                pages.append({"error": {"code": str(got.code), "message": got.message, "data": got.data}})
            else:
                took = {"ms": 12.5} if placed else {}  # it took a place
                pages.append({"ok": json.loads(json.dumps(got)) | took})
        return {"pages": pages}

    browser.handlers["fetch_details"] = answer
    return batches


async def test_pages_whose_places_open_together_go_in_one_command() -> None:
    browser = fetching(ROWS)
    batches = together(browser)
    out = await scrape(browser, follow=FOLLOW)
    assert out["data"] == [merged(n) for n in range(1, 13)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 12, "total": 12}
    read = [u for b in batches for u in b] + fetched(browser)
    assert sorted(read) == sorted(r[1] for r in ROWS[0]), "every page read once, each in a fetch_details"
    assert fetched(browser) == [] and max(len(b) for b in batches) > 1
    # As many as the site's places at most: another command's pages wait in the page for theirs while
    # one answer travels back.
    assert max(len(b) for b in batches) <= FOLLOW["concurrency"]


async def test_a_page_that_holds_no_places_gets_half_the_pace_a_command() -> None:
    browser = fetching(ROWS)
    batches = together(browser, placed=False)  # an answer without `ms`: nobody holds the site to the pace
    out = await scrape(browser, follow=FOLLOW)
    assert out["data"] == [merged(n) for n in range(1, 13)]
    # Two commands under way, so that the site works on one while the other's answer travels back; and
    # never more than the pace asked for at once (no twice as many).
    assert max(len(b) for b in batches) <= -(-FOLLOW["concurrency"] // 2)


async def test_a_page_s_failure_in_a_batch_costs_that_page_alone() -> None:
    browser = fetching(ROWS)
    browser.handlers["fetch_extract"] = failing(fetched_page, {5: [busy(503)], 7: [busy(404)]})
    batches = together(browser)
    out = await scrape(browser, follow=FOLLOW)
    assert [(e["row"], e["error"]) for e in out["metadata"]["follow_errors"]] == [(6, "http_error")]
    assert [r for i, r in enumerate(out["data"]) if i != 6] == [merged(n) for n in range(1, 13) if n != 7]
    assert out["metadata"]["follow"]["retried"] == 1
    assert [u for b in batches for u in b].count("https://data.example/item/5") == 2  # read once more


async def test_a_page_left_out_of_a_big_answer_is_asked_for_alone_sharing_the_places() -> None:
    browser = fetching(ROWS)
    batches = together(browser, deferred=frozenset({"https://data.example/item/4"}))
    out = await scrape(browser, follow=FOLLOW)
    assert out["data"] == [merged(n) for n in range(1, 13)]
    assert any(len(b) > 1 and "https://data.example/item/4" in b for b in batches)
    # Again in a fetch_details of its own (which carries the run's places: `together` checks each),
    # not a fetch_extract outside them.
    assert ["https://data.example/item/4"] in batches and fetched(browser) == []


async def test_an_extension_without_fetch_details_gets_each_page_alone() -> None:
    browser = fetching(ROWS)  # no fetch_details handler: unknown_command
    out = await scrape(browser, follow=FOLLOW)
    assert out["data"] == [merged(n) for n in range(1, 13)]
    asked = [c for c in browser.sent if isinstance(c, m.FetchDetails)]
    assert len(asked) == 1, "asked once, then every page alone"
    assert sorted(fetched(browser)) == sorted(r[1] for r in ROWS[0]), "each page fetched once"


async def test_a_batch_that_fails_as_a_whole_fails_each_of_its_pages() -> None:
    browser = fetching(ROWS)

    together(browser)
    answer = browser.handlers["fetch_details"]

    def broken(c: m.FetchDetails) -> Any:
        # The first page (the check) reads; every command of several pages fails as a whole.
        return TabPilotError(ErrorCode.ELEMENT_NOT_FOUND, "no such tab") if len(c.urls) > 1 else answer(c)

    browser.handlers["fetch_details"] = broken
    out = await scrape(browser, follow=FOLLOW)
    failed = {e["row"] for e in out["metadata"].get("follow_errors", [])}
    batched = {u for c in browser.sent if isinstance(c, m.FetchDetails) and len(c.urls) > 1 for u in c.urls}
    assert batched and failed == {int(u.rsplit("/", 1)[1]) - 1 for u in batched}
