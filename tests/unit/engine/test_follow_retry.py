"""follow against a scripted extension: a detail page whose server errs (5xx) or drops the connection is
read once more before it costs its row, fetched or rendered; one that fails again is a follow_errors
entry; a 4xx is not tried again."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.engine.test_follow import (
    FOLLOW,
    detail_page,
    fetched,
    fetched_page,
    fetching,
    merged,
    opened,
    row,
    scrape,
    site,
)

pytestmark = pytest.mark.anyio


def number(c: m.ExtractTab | m.FetchExtract) -> int:
    return int(c.url.rsplit("/", 1)[1])


def failing(fetch: Any, errors: dict[int, list[TabPilotError]]) -> Any:
    """`fetch`, answering each page's listed errors first, one per request."""

    def answer(c: m.FetchExtract) -> Any:
        waiting = errors.get(number(c))
        return waiting.pop(0) if waiting else fetch(c)

    return answer


def busy(status: int) -> TabPilotError:
    return TabPilotError(ErrorCode.HTTP_ERROR, f"answered HTTP {status}", data={"status": status})


async def test_a_server_error_or_a_reset_is_read_again_and_costs_nothing() -> None:
    reset = TabPilotError(ErrorCode.NAVIGATION_FAILED, "fetch failed", data={"reason": "fetch_failed"})
    browser = fetching([[row(n) for n in range(1, 5)]])
    browser.handlers["fetch_extract"] = failing(fetched_page, {2: [busy(503)], 3: [reset]})
    out = await scrape(browser)
    assert out["data"] == [merged(n) for n in range(1, 5)]
    assert "follow_errors" not in out["metadata"]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "retried": 2}
    assert sorted(fetched(browser)).count("https://data.example/item/2") == 2


async def test_a_fetched_page_whose_connection_drops_twice_is_not_rendered_a_third_time() -> None:
    reset = TabPilotError(ErrorCode.NAVIGATION_FAILED, "fetch failed", data={"reason": "fetch_failed"})
    browser = fetching([[row(n) for n in range(1, 5)]])
    browser.handlers["fetch_extract"] = failing(fetched_page, {3: [reset, reset]})
    out = await scrape(browser)
    assert [(e["row"], e["error"]) for e in out["metadata"]["follow_errors"]] == [(2, "navigation_failed")]
    assert fetched(browser).count("https://data.example/item/3") == 2
    assert opened(browser) == ["https://data.example/item/1"]  # the check's page alone was rendered
    assert "rendered" not in out["metadata"]["follow"]


async def test_a_page_that_fails_twice_or_with_a_4xx_costs_its_row() -> None:
    browser = fetching([[row(n) for n in range(1, 5)]])
    browser.handlers["fetch_extract"] = failing(fetched_page, {2: [busy(502), busy(500)], 3: [busy(404)]})
    out = await scrape(browser)
    errors = {e["row"]: e["error"] for e in out["metadata"]["follow_errors"]}
    assert errors == {1: "http_error", 2: "http_error"}
    assert [fetched(browser).count(f"https://data.example/item/{n}") for n in (2, 3)] == [2, 1]
    assert out["data"][0] == merged(1) and out["data"][3] == merged(4)


async def test_a_rendered_page_is_read_again_in_a_fresh_tab() -> None:
    tries: list[int | None] = []

    def tab(c: m.ExtractTab) -> Any:
        if number(c) == 2:
            tries.append(c.reuse_tab_id)
            if len(tries) == 1:
                return TabPilotError(ErrorCode.NAVIGATION_FAILED, "HTTP 503", data={"status": 503})
        return detail_page(c) | {"kept_tab_id": 70 + number(c)}

    # Follow in tabs only (one at a time, so that page 2 would reuse page 1's tab).
    browser = site([[row(1), row(2), row(3)]], tab)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 1})
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert out["metadata"]["follow"]["retried"] == 1
    assert tries == [71, None], "the failed read closed its tab: the second try opens one"
