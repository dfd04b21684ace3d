"""A one-page extract of a list that visibly goes on says so (`metadata.more`, with the option that
reads on); it stays complete: the page asked for was read whole."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio


async def one_page(more: dict[str, Any] | None, **options: Any) -> dict[str, Any]:
    browser = ScriptedBrowser()
    rows = [["a"], ["b"]]
    seen = {"more": more} if more else {}
    browser.handlers["extract"] = lambda c: {"rows": rows[: c.limit], "count": 2} | seen
    request = {"operation": "extract", "selector": "li", "schema": {"name": "a"}, "options": options}
    p = build_plan(parse_request(request))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


@pytest.mark.parametrize(
    ("more", "option", "value"),
    [
        ({"seen": "pager", "selector": ".this-page + a"}, "options.paginate.next_selector", ".this-page + a"),
        (
            {"seen": "next_link", "selector": 'a[rel~="next"]'},
            "options.paginate.next_selector",
            'a[rel~="next"]',
        ),
        ({"seen": "load_more", "selector": "button.more"}, "options.scroll.max_scrolls", 20),
        ({"seen": "grid_rows", "rows": 2000}, "options.scroll.max_scrolls", 20),
    ],
)
async def test_a_list_that_goes_on_says_so(more: dict[str, Any], option: str, value: Any) -> None:
    out = await one_page(more)
    assert out["status"] == "complete" and "complete_because" not in out["metadata"]
    seen = out["metadata"]["more"]
    assert seen["seen"] == more["seen"]
    assert (seen["hint"]["option"], seen["hint"]["value"]) == (option, value)


async def test_a_list_that_ends_on_the_page_says_nothing_more() -> None:
    out = await one_page(None)
    assert out["status"] == "complete" and "more" not in out["metadata"]


@pytest.mark.parametrize(("limit", "told"), [(2, False), (1, False), (3, True)])
async def test_rows_cut_at_the_limit_asked_for_say_nothing_more(limit: int, told: bool) -> None:
    out = await one_page({"seen": "pager", "selector": ".this-page + a"}, limit=limit)
    assert len(out["data"]) == min(limit, 2)
    assert ("more" in out["metadata"]) is told
