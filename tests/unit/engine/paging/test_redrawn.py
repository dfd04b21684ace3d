"""Pages redrawn in place, several to one paginate command, against a scripted table: the pages come in
order and count as pages (max_pages, limit, where, stop reasons), a pause between pages clicks one at
a time, an extension that answers one page a command still works, a cancel keeps what was read; and
the same through the real native host over its socket."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tests.support.fake_browser import HANG, ScriptedBrowser, TableSite
from tests.support.fake_extension import FakeExtension

pytestmark = pytest.mark.anyio

PAGES = [[[f"r{p}{i}", str(10 * p + i)] for i in range(2)] for p in range(7)]
SCHEMA = {"name": "td:nth-child(1)", "points": "td:nth-child(2) | number"}


def rows(pages: range) -> list[dict[str, Any]]:
    return [{"name": f"r{p}{i}", "points": 10 * p + i} for p in pages for i in range(2)]


def request(paginate: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return {
        "operation": "extract",
        "selector": "tr",
        "schema": SCHEMA,
        "options": {"paginate": {"next_selector": "#next", "max_pages": 20} | (paginate or {}), **options},
    }


async def walk(site: TableSite, paginate: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    browser = site.install(ScriptedBrowser())
    p = build_plan(parse_request(request(paginate, **options)))
    with anyio.fail_after(10):
        return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


def stop(out: dict[str, Any]) -> tuple[str, int]:
    s = out["metadata"]["pagination_stopped"]
    return s["reason"], s["page"]


async def test_one_command_clicks_through_every_page_and_each_counts() -> None:
    site = TableSite(PAGES, in_place=True, batches=True)
    out = await walk(site)
    assert out["status"] == "complete" and out["data"] == rows(range(7))
    meta = out["metadata"]
    assert meta["pagination_mode"] == "in_place" and meta["pages_scraped"] == 7
    assert stop(out) == ("no_next", 7)  # the batch's own end, recorded after its last page
    # Page 1 read, then one command for the 19 pages max_pages still allows: the table had 6.
    assert site.commands == [19] and site.extracted == [0, 6]  # 6: the last page's pager, read once


async def test_batches_cut_short_by_the_page_go_on_with_another_command() -> None:
    site = TableSite(PAGES, in_place=True, batches=True, batch_cap=2)  # the page's time budget, say
    out = await walk(site)
    assert out["data"] == rows(range(7)) and out["metadata"]["pages_scraped"] == 7
    assert site.commands == [19, 17, 15, 13] and stop(out) == ("no_next", 7)


async def test_max_pages_asks_only_for_the_pages_allowed() -> None:
    site = TableSite(PAGES, in_place=True, batches=True)
    out = await walk(site, {"max_pages": 3})
    assert out["data"] == rows(range(3)) and stop(out) == ("max_pages", 3)
    assert site.commands == [2] and site.clicks == 2


async def test_limit_stops_the_clicking_in_the_page_and_the_rows_at_the_limit() -> None:
    site = TableSite(PAGES, in_place=True, batches=True)
    out = await walk(site, limit=5)
    assert out["data"] == rows(range(3))[:5] and stop(out) == ("limit", 3)
    assert site.clicks == 2  # the page stopped once 5 rows were read


async def test_where_filters_the_batched_pages_as_any_other() -> None:
    site = TableSite(PAGES, in_place=True, batches=True)
    out = await walk(site, where={"points": {">=": 40}})
    assert out["data"] == rows(range(4, 7))
    assert out["metadata"]["rows_filtered_out"] == 8 and out["metadata"]["pages_scraped"] == 7


async def test_a_pause_between_pages_clicks_one_page_a_command() -> None:
    site = TableSite(PAGES, in_place=True, batches=True)
    out = await walk(site, {"delay_ms": 1})
    assert out["data"] == rows(range(7))
    assert site.commands == [1] * 7  # six pages, then the end


async def test_an_extension_that_answers_one_page_a_command_still_walks_every_page() -> None:
    site = TableSite(PAGES, in_place=True)  # no rows with the click, no batches
    out = await walk(site)
    assert out["data"] == rows(range(7)) and stop(out) == ("no_next", 7)
    # Each page read by an extract of its own, then the last page's pager once.
    assert site.extracted == [*range(7), 6]


async def test_a_cancel_keeps_the_pages_read_before_the_command_in_flight() -> None:
    site = TableSite(PAGES, in_place=True, batches=True, batch_cap=3)
    browser = site.install(ScriptedBrowser())
    answered = site.paginate
    second = asyncio.Event()

    def paginate(c: m.Paginate) -> Any:
        if site.commands:
            second.set()
            return HANG
        return answered(c)

    browser.handlers["paginate"] = paginate
    p = build_plan(parse_request(request()))
    run = asyncio.create_task(runner.run(p, browser, grace_s=0.05))
    with anyio.fail_after(10):
        await second.wait()
        run.cancel()
        outcome = await run  # the runner answers a cancel with what it had
    out = result.response(outcome, p, "corr-test")
    assert out["status"] == "cancelled" and out["data"] == rows(range(4))


async def test_batched_pages_over_the_real_host(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    site = TableSite(PAGES, in_place=True, batches=True)
    ext.handlers["extract"] = lambda msg: site.extract(m.Extract(id=0, **_args(msg)))
    ext.handlers["paginate"] = lambda msg: site.paginate(m.Paginate(id=0, **_args(msg)))
    pool = BrowserPool(connect_wait_s=5)
    try:
        with anyio.fail_after(20):
            out = await pool.call(m.Scrape(id=0, request=parse_request(request())))
        assert out["status"] == "complete" and out["data"] == rows(range(7))
        assert out["metadata"]["pages_scraped"] == 7
        assert [r["pages"] for r in ext.received if r["type"] == "paginate"] == [19]
    finally:
        await pool.aclose()
        await ext.stop()


def _args(msg: dict[str, Any]) -> dict[str, Any]:
    """A command as the extension received it, as keyword arguments of its struct."""
    fields = [m.FieldPlan(**f) for f in msg.get("fields") or []]
    keep = {k: v for k, v in msg.items() if k not in ("type", "id", "fields")}
    return keep | {"fields": fields}
