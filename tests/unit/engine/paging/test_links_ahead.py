"""Pages read ahead along next links by the page agent (FetchExtract.ahead), against the scripted site of
test_links.py whose fetch answers, as the page agent does, with the pages read ahead after the one asked
for (`later`): each is a page of the walk of its own, in order; none is asked for twice; nothing is read
past max_pages or what a limit needs, nor ahead with a pause between pages or where a numbered pager
tells the URLs (those the engine fetches itself)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tabpilot.engine.paging.links import LINKED_AHEAD
from tabpilot.wire import messages as m
from tests.support.fake_browser import ScriptedBrowser

from .test_links import MANY, MANY_ROWS, LinkedSite, url_of, walk

pytestmark = pytest.mark.anyio


class AheadSite(LinkedSite):
    """LinkedSite whose fetch_extract hands over `ahead` more pages along the next links."""

    async def fetch(self, c: m.FetchExtract) -> Any:
        out = await super().fetch(c)
        if not isinstance(out, dict) or c.cache_first:
            return out
        later: list[dict[str, Any]] = []
        page: dict[str, Any] = out
        while len(later) < c.ahead and page["next"].get("url"):
            nxt = page["next"]["url"]
            page = await super().fetch(alone(c, nxt))
            later.append(page)
        return out | {"later": later} if later else out


def alone(c: m.FetchExtract, url: str) -> m.FetchExtract:
    """The same command for the page at `url`, nothing read ahead."""
    return msgspec.structs.replace(c, url=url, ahead=0)


def fetches(browser: ScriptedBrowser) -> list[m.FetchExtract]:
    return [c for c in browser.sent if isinstance(c, m.FetchExtract) and not c.cache_first]


async def test_pages_read_ahead_come_back_with_the_page_asked_for_each_a_page_of_its_own() -> None:
    site = AheadSite(MANY)  # ?page=N links, no pager: only the next links tell the way
    out, browser = await walk(site)
    assert out["status"] == "complete" and out["data"] == MANY_ROWS
    assert out["metadata"]["pages_scraped"] == 20
    # Page 1 once (the check), then each page once.
    assert sorted(site.fetched) == sorted(url_of(k) for k in range(20)), "each page once"
    sent = fetches(browser)
    assert all(0 < c.ahead <= LINKED_AHEAD for c in sent[:-1])
    assert len(sent) < 20 / 2, "several pages an answer"


@pytest.mark.parametrize(("options", "pages"), [({"paginate": {"max_pages": 6}}, 6), ({"limit": 3}, 3)])
async def test_nothing_is_read_ahead_past_max_pages_or_what_the_limit_needs(
    options: dict[str, Any], pages: int
) -> None:
    site = AheadSite(MANY)
    out, _ = await walk(site, **options)
    assert out["data"] == MANY_ROWS[:pages]
    assert set(site.fetched) <= {url_of(k) for k in range(pages)}


async def test_a_pause_between_pages_reads_nothing_ahead() -> None:
    site = AheadSite(MANY[:5])
    out, browser = await walk(site, paginate={"delay_ms": 1})
    assert out["data"] == MANY_ROWS[:5]
    assert [c.ahead for c in fetches(browser)] == [0] * 4


async def test_where_a_numbered_pager_tells_the_urls_the_engine_fetches_them_itself() -> None:
    site = AheadSite(MANY, window=50)
    out, browser = await walk(site)
    assert out["data"] == MANY_ROWS
    assert {c.ahead for c in fetches(browser)} == {0}
