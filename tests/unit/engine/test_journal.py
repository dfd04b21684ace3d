"""Runs journal their rows as they go: a host that dies mid-run loses at most the page in flight, the
same call with `resume` goes on from the last page read, and a result too big to answer inline is a
handle whose rows read back a page at a time."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tabpilot.engine import journal
from tabpilot.engine.jobs import Job, Jobs
from tabpilot.engine.store import WorkflowStore
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import HANG, ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td.name", "n": "td.n | number"}
PAGES = [[[f"row {p}-{i}", str(p * 10 + i)] for i in range(3)] for p in range(6)]
EXPECTED = [{"name": f"row {p}-{i}", "n": p * 10 + i} for p in range(6) for i in range(3)]


def extract(**kw: Any) -> dict[str, Any]:
    return {
        "operation": "extract",
        "selector": "tr",
        "schema": SCHEMA,
        "options": {"paginate": {"next_selector": "a.next", "max_pages": 50}},
    } | kw


def host(tmp_path: Path, site: TableSite, *, hang_at: int | None = None) -> Jobs:
    """A host's engine over `site` (a navigate loads the page its URL names); with `hang_at`, the browser
    stops answering when asked for that page (0-based), as a dying host's would."""
    browser = site.install(ScriptedBrowser())

    def navigate(c: m.Navigate) -> Any:
        site.page = int(c.url.rpartition("page=")[2]) - 1 if "page=" in c.url else 0
        return {"tab_id": 1, "url": c.url, "title": "t"}

    def paginate(c: m.Paginate) -> Any:
        if hang_at is not None and site.page + 1 >= hang_at:
            return HANG
        return TableSite.paginate(site, c)

    browser.handlers["navigate"] = navigate
    browser.handlers["paginate"] = paginate
    jobs = Jobs(browser, WorkflowStore(tmp_path / "data"), grace_s=0.05)
    jobs.owner = lambda: "browser-1"
    return jobs


async def journaled_pages(tmp_path: Path, cid: str, pages: int) -> None:
    """Until the run's journal holds `pages` pages (the browser then hangs: nothing else moves)."""
    async with asyncio.timeout(5):
        while (found := journal.load(tmp_path / "data", cid)) is None or found.tally.pages < pages:
            await asyncio.sleep(0.01)


async def stopped(live: Jobs, dead: Jobs, job: Job) -> None:
    """The test's end: the live host's writes done, then the "dead" one's hung task ended (it shares
    this process, so it would otherwise write on after the test)."""
    await live.shutdown()
    assert job.task is not None
    job.task.cancel()
    await dead.shutdown()


async def test_a_host_that_died_mid_run_keeps_its_pages_and_resume_goes_on_without_duplicates(
    tmp_path: Path,
) -> None:
    first_site = TableSite(PAGES)
    dying = host(tmp_path, first_site, hang_at=4)
    job = dying.start(extract())
    await journaled_pages(tmp_path, job.correlation_id, 4)
    path = journal.path_of(tmp_path / "data", job.correlation_id)
    assert path is not None and stat.S_IMODE(os.stat(path).st_mode) == 0o600

    # A new host (the old one's task never ends: it died) finds the rows through its journal.
    site = TableSite(PAGES)
    again = host(tmp_path, site)
    seen = await again.result(job.correlation_id)
    assert seen["status"] == "partial" and seen["data"] == EXPECTED[:12]
    hint = seen["metadata"]["partial_because"]["hint"]
    assert hint == {"option": "resume", "value": job.correlation_id, "why": hint["why"]}

    resumed = again.start(extract(resume=job.correlation_id))
    out = await again.wait(resumed, 5_000)
    assert out["status"] == "complete" and out["correlation_id"] == job.correlation_id
    assert out["data"] == EXPECTED and out["metadata"]["rows_extracted"] == len(EXPECTED)
    assert site.extracted.count(3) == 1 and 0 not in site.extracted, "page 4 read again, pages 1-3 not"
    await stopped(again, dying, job)


async def test_resume_refuses_another_call_and_answers_a_finished_run_as_it_ended(tmp_path: Path) -> None:
    jobs = host(tmp_path, TableSite(PAGES))
    done = await jobs.wait(jobs.start(extract()), 5_000)
    assert done["status"] == "complete" and done["data"] == EXPECTED
    cid = done["correlation_id"]
    with pytest.raises(TabPilotError) as refused:
        jobs.start(extract(resume=cid, selector="li"))
    assert refused.value.code == ErrorCode.INVALID_PARAMS
    with pytest.raises(TabPilotError) as unknown:
        jobs.start(extract(resume="corr-0123456789ab"))
    assert unknown.value.code == ErrorCode.WORKFLOW_NOT_FOUND
    other = host(tmp_path, TableSite(PAGES))
    other.owner = lambda: "browser-2"
    with pytest.raises(TabPilotError) as foreign:
        other.start(extract(resume=cid))
    assert foreign.value.code == ErrorCode.WORKFLOW_NOT_FOUND
    fresh = host(tmp_path, TableSite(PAGES))
    again = await fresh.wait(fresh.start(extract(resume=cid, tab_id=7)), 5_000)
    assert again["status"] == "complete" and again["data"] == EXPECTED


async def test_cancel_keeps_every_row_read_and_resume_completes_it(tmp_path: Path) -> None:
    jobs = host(tmp_path, TableSite(PAGES), hang_at=3)
    job = jobs.start(extract())
    await journaled_pages(tmp_path, job.correlation_id, 3)
    cancelled = await jobs.cancel(job.correlation_id)
    assert cancelled["status"] == "cancelled" and cancelled["data"] == EXPECTED[:9]
    fresh = host(tmp_path, TableSite(PAGES))
    out = await fresh.wait(fresh.start(extract(resume=job.correlation_id)), 5_000)
    assert out["status"] == "complete" and out["data"] == EXPECTED


async def test_a_result_over_max_bytes_is_a_handle_read_back_a_page_at_a_time(tmp_path: Path) -> None:
    pages = [[[f"row {p}-{i} " + "x" * 200, str(i)] for i in range(50)] for p in range(6)]
    jobs = host(tmp_path, TableSite(pages))
    out = await jobs.wait(jobs.start(extract(options={**extract()["options"], "max_bytes": 20_000})), 5_000)
    assert out["status"] == "complete" and "truncated" not in out["metadata"]
    handle = out["result"]
    assert (
        handle["rows"] == 300
        and handle["pages"] == 6
        and handle["schema"] == {"name": "string", "n": "integer"}
    )
    assert handle["uri"] == f"tabpilot://results/{out['correlation_id']}?browser=browser-1"
    assert 0 < len(out["data"]) == out["metadata"]["rows_returned"] <= journal.HEAD_ROWS
    got: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        page = jobs.rows(out["correlation_id"], offset, 70, 10_000)
        assert len(msgspec.json.encode(page["rows"])) <= 10_000
        got += page["rows"]
        offset = page["next_offset"]
    assert got == [{"name": r[0], "n": int(r[1])} for p in pages for r in p]
    assert page["finished"] is True and page["origins"] == ["https://data.example/"]


async def test_rows_read_back_follow_a_journal_that_grew_since_the_last_read(tmp_path: Path) -> None:
    jobs = host(tmp_path, TableSite(PAGES), hang_at=3)
    job = jobs.start(extract())
    await journaled_pages(tmp_path, job.correlation_id, 3)
    await jobs.cancel(job.correlation_id)
    before = jobs.rows(job.correlation_id, 4, 100, 10_000)
    assert before["rows"] == EXPECTED[4:9] and before["total"] == 9 and before["next_offset"] is None
    fresh = host(tmp_path, TableSite(PAGES))
    await fresh.wait(fresh.start(extract(resume=job.correlation_id)), 5_000)
    after = jobs.rows(job.correlation_id, 4, 100, 10_000)
    assert after["rows"] == EXPECTED[4:] and after["total"] == len(EXPECTED) and after["finished"] is True


async def test_a_journal_line_cut_short_is_ignored(tmp_path: Path) -> None:
    jobs = host(tmp_path, TableSite(PAGES[:2]))
    out = await jobs.wait(jobs.start(extract()), 5_000)
    path = journal.path_of(tmp_path / "data", out["correlation_id"])
    assert path is not None
    text = path.read_bytes()
    path.write_bytes(
        text[: text.rindex(b'{"k":"page"')] + b'{"k":"page","step":0,"url":"x","n":3,"rows":[["cut'
    )
    found = journal.load(tmp_path / "data", out["correlation_id"])
    assert found is not None and found.tally.rows == 3 and found.end is None


async def test_a_workflow_resumes_in_its_extract_step_after_running_the_steps_before_again(
    tmp_path: Path,
) -> None:
    workflow = {
        "operation": "workflow",
        "steps": [
            {"type": "navigate", "url": "https://data.example/table?page=1"},
            {"type": "extract", "selector": "tr", "schema": SCHEMA, "paginate": {"next_selector": "a.next"}},
        ],
    }
    workflow["steps"][1]["paginate"]["max_pages"] = 50
    dying = host(tmp_path, TableSite(PAGES), hang_at=2)
    job = dying.start(workflow)
    await journaled_pages(tmp_path, job.correlation_id, 2)
    site = TableSite(PAGES)
    again = host(tmp_path, site)
    out = await again.wait(again.start(workflow | {"resume": job.correlation_id}), 5_000)
    assert out["status"] == "complete" and out["data"] == EXPECTED
    assert out["metadata"]["resumed"] == {"from_page": 2, "pages_read_again": 1}
    assert site.extracted[0] == 1 and 0 not in site.extracted, "page 2 read again, page 1 not"
    await stopped(again, dying, job)


def test_a_resumed_walk_starts_at_the_page_the_last_one_journaled_links_to(tmp_path: Path) -> None:
    cid = "corr-0123456789ab"
    run = journal.Journal.create(tmp_path, cid, "me", "d", 1_000_000)
    run.page(0, "https://data.example/t?page=1", [{"n": 1}], [], "https://data.example/t?page=2")
    run.page(0, "https://data.example/t?page=2", [{"n": 2}], [], "https://data.example/t?page=3")
    run.close()
    found = journal.load(tmp_path, cid)
    assert found is not None
    # Read on from page 3, the page 2 links to: no page read again, page 3 is the walk's third.
    assert found.point(0, max_pages=50) == journal.Point("https://data.example/t?page=3", 0, 3, 2)
    # At the cap, or not a walk that pages by links: the last page again, for its next control.
    assert found.point(0, max_pages=2) == journal.Point("https://data.example/t?page=2", 1, 2, 2)
    assert found.point(0) == journal.Point("https://data.example/t?page=2", 1, 2, 2)
    # A last page whose next control is no link (a button, the end) names no page to start at.
    run = journal.Journal.reopen(tmp_path, found, cid)
    run.page(0, "https://data.example/t?page=3", [{"n": 3}], [], None)
    run.close()
    again = journal.load(tmp_path, cid)
    assert again is not None
    assert again.point(0, max_pages=50) == journal.Point("https://data.example/t?page=3", 1, 3, 3)
    # A next link whose URL held a secret (scrubbed when journaled) is not loaded.
    run = journal.Journal.reopen(tmp_path, again, cid)
    run.page(0, "https://data.example/t?page=4", [{"n": 4}], [], "https://data.example/t?page=5&token=s3cr3t")
    run.close()
    last = journal.load(tmp_path, cid)
    assert last is not None and last.next[0].endswith("token=[REDACTED]")
    assert last.point(0, max_pages=50) == journal.Point("https://data.example/t?page=4", 1, 4, 4)


def test_a_walk_that_fetched_from_the_tabs_page_names_it_for_the_resumed_walk(tmp_path: Path) -> None:
    cid = "corr-0123456789ac"
    tab = "https://data.example/t?page=1"
    run = journal.Journal.create(tmp_path, cid, "me", "d", 1_000_000)
    run.page(0, tab, [{"n": 1}], [], "https://data.example/t?page=2")
    run.page(0, "https://data.example/t?page=2", [{"n": 2}], [], "https://data.example/t?page=3", tab)
    run.close()
    found = journal.load(tmp_path, cid)
    assert found is not None
    page3 = "https://data.example/t?page=3"
    assert found.point(0, max_pages=50) == journal.Point(page3, 0, 3, 2, tab, "https://data.example/t?page=2")
    # A page rendered last (the walk went on in the tab) names none; nor does a tab's page with a secret.
    for last_tab, named in ((None, None), ("https://data.example/t?page=1&token=s3cr3t", None)):
        run = journal.Journal.reopen(tmp_path, found, cid)
        run.page(0, page3, [{"n": 3}], [], "https://data.example/t?page=4", last_tab)
        run.close()
        again = journal.load(tmp_path, cid)
        point = None if again is None else again.point(0, max_pages=50)
        assert point is not None and point.tab == named and point.url == "https://data.example/t?page=4"
