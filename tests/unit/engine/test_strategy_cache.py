"""The strategy cache through Jobs: register, rerun by id or URL, repair, stale, aggregate, persistence."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine import aggregate
from tabpilot.engine.aggregate import Aggregates
from tabpilot.engine.jobs import Jobs
from tabpilot.engine.store import WorkflowStore
from tabpilot.engine.strategies import StrategyStore
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"ticket": "td.key", "points": "td.points | number"}
# Page 2 repeats P-3, as listings do when a row moves between loads.
PAGES = [
    [["P-1", "3"], ["P-2", "5"], ["P-3", "1"]],
    [["P-3", "1"], ["P-4", "8"], ["P-5", "2"]],
    [["P-6", "4"], ["P-7", "4"], ["P-8", "9"]],
]
EXTRACT: dict[str, Any] = {"operation": "extract", "selector": "tr", "schema": SCHEMA}


def setup(
    tmp_path: Path, pages: list[list[list[Any]]] | None = None
) -> tuple[Jobs, ScriptedBrowser, TableSite]:
    site = TableSite(pages or PAGES)
    browser = site.install(ScriptedBrowser())
    return Jobs(browser, WorkflowStore(tmp_path / "data"), grace_s=0.05), browser, site


async def finish(jobs: Jobs, req: dict[str, Any]) -> dict[str, Any]:
    return await jobs.wait(jobs.start(req), 5_000)


def refused(jobs: Jobs, req: dict[str, Any]) -> TabPilotError:
    with pytest.raises(TabPilotError) as info:
        jobs.start(req)
    return info.value


async def test_extract_registers_then_reruns_by_id_with_no_extra_round_trip(tmp_path: Path) -> None:
    jobs, browser, site = setup(tmp_path)
    first = await finish(jobs, EXTRACT)
    ex = first["extraction_id"]
    assert ex.startswith("ex-") and first["metadata"]["aggregate"] == "3 unique rows from 1 page"
    site.page = 1
    browser.sent.clear()
    again = await finish(jobs, {"operation": "extract", "extraction_id": ex, "key_fields": ["ticket"]})
    assert browser.tags() == ["extract"]
    assert again["extraction_id"] == ex and [r["ticket"] for r in again["data"]] == ["P-3", "P-4", "P-5"]
    assert again["metadata"]["aggregate"] == "5 unique rows from 2 pages"
    agg = jobs.orchestrator.aggregates.get(ex)
    assert agg is not None and agg.doc.duplicates == 1
    # Reading page 2 again adds no page and no row.
    await finish(jobs, {"operation": "extract", "extraction_id": ex})
    assert agg.summary() == "5 unique rows from 2 pages"
    s = jobs.orchestrator.strategies.get(ex)
    assert (s.success_count, s.failure_count, s.typical_rows, s.key_fields) == (3, 0, 3, ["ticket"])


async def test_the_same_spec_on_the_same_pattern_is_one_strategy(tmp_path: Path) -> None:
    jobs, _, site = setup(tmp_path)
    a = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 2  # ?page=3: the same listing
    b = (await finish(jobs, EXTRACT))["extraction_id"]
    other = (await finish(jobs, {**EXTRACT, "schema": {"ticket": "td.key"}}))["extraction_id"]
    assert a == b != other
    assert jobs.orchestrator.strategies.get(a).success_count == 2
    assert jobs.orchestrator.strategies.get(a).url_pattern == "https://data.example/table"


async def test_a_workflow_extract_step_registers_its_strategy(tmp_path: Path) -> None:
    jobs, browser, site = setup(tmp_path)
    step = {"type": "extract", "selector": "tr", "schema": SCHEMA}
    flow = {
        "operation": "workflow",
        "options": {"delay_ms": 0},
        "steps": [{"type": "press", "key": "End"}, step],
    }
    browser.handlers["press"] = lambda c: {}
    out = await finish(jobs, flow)
    ex = out["metadata"]["extraction_ids"]["steps[1]"]
    assert jobs.orchestrator.strategies.get(ex).spec == {"selector": "tr", "schema": SCHEMA}
    # The agent reruns that step alone on the next page by its id; the same spec is the same strategy.
    site.page = 1
    again = await finish(jobs, {"operation": "extract", "extraction_id": ex})
    assert [r["ticket"] for r in again["data"]] == ["P-3", "P-4", "P-5"]
    assert (await finish(jobs, EXTRACT))["extraction_id"] == ex


async def test_use_cache_picks_the_strategy_for_the_url(tmp_path: Path) -> None:
    jobs, browser, site = setup(tmp_path)
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 2
    browser.sent.clear()
    out = await finish(jobs, {"operation": "extract", "use_cache": True})
    assert browser.tags() == ["extract", "extract"]  # the URL probe, then the extract
    assert out["extraction_id"] == ex and out["data"][0] == {"ticket": "P-6", "points": 4}
    site.url = "https://elsewhere.example/table"
    missing = await finish(jobs, {"operation": "extract", "use_cache": True})
    assert missing["status"] == "error" and missing["error"] == ErrorCode.STRATEGY_NOT_FOUND
    assert missing["cached"] == []  # nothing cached for that host


async def test_bad_requests_have_stable_codes(tmp_path: Path) -> None:
    jobs, _, _ = setup(tmp_path)
    assert refused(jobs, {"operation": "extract", "extraction_id": "ex-000000000000"}).code == (
        ErrorCode.STRATEGY_NOT_FOUND
    )
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    bad = [
        {"operation": "extract", "use_cache": True, "extraction_id": ex},
        {"operation": "extract", "use_cache": True, "selector": "tr"},
        {**EXTRACT, "key_fields": ["nope"]},
        {**EXTRACT, "key_fields": []},
        {"operation": "workflow", "extraction_id": ex, "steps": [{"type": "wait", "selector": "x"}]},
    ]
    for req in bad:
        assert refused(jobs, req).code == ErrorCode.INVALID_PARAMS, req


async def test_a_repair_keeps_the_id_and_the_aggregate(tmp_path: Path) -> None:
    jobs, _, site = setup(tmp_path)
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 1
    fixed = await finish(jobs, {**EXTRACT, "schema": {"ticket": "td.id"}, "extraction_id": ex})
    assert fixed["extraction_id"] == ex and fixed["metadata"]["aggregate"] == "6 unique rows from 2 pages"
    assert jobs.orchestrator.strategies.get(ex).spec["schema"] == {"ticket": "td.id"}


SUGGESTED = {
    "candidates": [
        {
            "kind": "table",
            "selector": "table.v2 tr",
            "fields": [{"name": "ticket", "selector": "td.k", "take": "text"}],
            "converts": {},
            "rows": 3,
            "sample": [["P-4"]],
            "score": 9,
        }
    ],
    "skeleton": {"selector": "body", "html": "<table class=v2>…</table>", "bytes": 26, "truncated": False},
    "url": "https://data.example/table?page=2",
}


async def test_zero_rows_where_there_were_many_is_stale_with_a_digest(tmp_path: Path) -> None:
    jobs, browser, site = setup(tmp_path, [PAGES[0], []])
    asked: list[Any] = []
    browser.handlers["suggest"] = lambda c: asked.append(c) or SUGGESTED
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 1
    stale = await finish(jobs, {"operation": "extract", "extraction_id": ex})
    assert stale["status"] == "error" and stale["error"] == ErrorCode.STRATEGY_STALE
    assert (stale["extraction_id"], stale["typical_rows"], stale["got_rows"]) == (ex, 3, 0)
    [draft] = stale["digest"]["candidates"]
    assert draft["selector"] == "table.v2 tr" and draft["schema"] == {"ticket": "td.k"}
    assert stale["digest"]["skeleton"]["html"].startswith("<table")
    assert asked[0].query == "ticket points"  # ranked by the fields the strategy used to read
    s = jobs.orchestrator.strategies.get(ex)
    assert (s.failure_count, s.typical_rows) == (1, 3)


async def test_few_rows_to_none_is_not_stale(tmp_path: Path) -> None:
    jobs, _, site = setup(tmp_path, [[["P-1", "3"]], []])
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 1
    out = await finish(jobs, {"operation": "extract", "extraction_id": ex})
    assert out["status"] == "complete" and out["data"] == []


@pytest.mark.parametrize(
    ("code", "stale"),
    [(ErrorCode.INVALID_SELECTOR, True), (ErrorCode.ELEMENT_NOT_FOUND, True), ("timeout", False)],
)
async def test_a_failing_rerun_is_stale_when_the_page_explains_it(
    tmp_path: Path, code: str, stale: bool
) -> None:
    jobs, browser, _ = setup(tmp_path)
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    browser.handlers["extract"] = lambda c: TabPilotError(code, "no good")
    # The page cannot be digested either: the stale answer says so instead of failing.
    browser.handlers["suggest"] = lambda c: TabPilotError(ErrorCode.TAB_CLOSED, "gone")
    out = await finish(jobs, {"operation": "extract", "extraction_id": ex})
    assert out["error"] == (ErrorCode.STRATEGY_STALE if stale else code)
    if stale:
        assert out["cause"] == {"error": str(code), "message": "no good"}
        assert out["digest"] == {"error": "tab_closed", "message": "gone"}
    assert jobs.orchestrator.strategies.get(ex).failure_count == int(stale)


async def test_strategies_and_aggregates_survive_a_restart(tmp_path: Path) -> None:
    jobs, _, _ = setup(tmp_path)
    ex = (await finish(jobs, {**EXTRACT, "key_fields": ["ticket"]}))["extraction_id"]
    await jobs.shutdown()  # waits for the writes
    root = tmp_path / "data"
    for folder in ("strategies", "aggregates"):
        assert stat.S_IMODE((root / folder).stat().st_mode) == 0o700
        assert stat.S_IMODE((root / folder / f"{ex}.json").stat().st_mode) == 0o600
    (root / "strategies" / "ex-aaaaaaaaaaaa.json").write_text("{not json")
    again, _, _ = setup(tmp_path)
    assert [s.extraction_id for s in again.orchestrator.strategies.all()] == [ex]
    agg = again.orchestrator.aggregates.get(ex)
    assert agg is not None and agg.summary() == "3 unique rows from 1 page"
    assert agg.doc.key_fields == ["ticket"]


def test_strategy_lru_cap(tmp_path: Path) -> None:
    store = StrategyStore(tmp_path, cap=3)
    ids = [
        store.register(f"https://a.example/x{i}", {"selector": "tr"}, 1, None).extraction_id for i in range(3)
    ]
    store.succeeded(store.get(ids[0]), 1)  # the oldest is used again
    store.register("https://a.example/x9", {"selector": "tr"}, 1, None)
    store.flush()
    kept = {p.stem for p in (tmp_path / "strategies").glob("ex-*.json")}
    assert ids[0] in kept and ids[1] not in kept and len(kept) == 3


def test_dedup_by_row_or_key_fields_and_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    aggs = Aggregates(tmp_path)
    rows = [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1, "b": 3}]
    exact = aggs.add("ex-000000000001", rows, url="u1", pages=1, key_fields=None)
    assert len(exact.doc.rows) == 2 and exact.doc.duplicates == 1  # key order does not make a row new
    keyed = aggs.add("ex-000000000001", [{"a": 1, "b": 9}], url="u2", pages=1, key_fields=["a"])
    assert keyed.doc.rows == [{"a": 1, "b": 2}] and keyed.summary() == "1 unique row from 2 pages"
    monkeypatch.setattr(aggregate, "MAX_ROWS", 2)
    capped = aggs.add("ex-000000000002", [{"n": i} for i in range(5)], url="u", pages=3, key_fields=None)
    assert capped.summary() == "2 unique rows from 3 pages (capped: 3 more rows not kept)"
    assert aggs.clear("ex-000000000002") == ["ex-000000000002"] and aggs.get("ex-000000000002") is None
    assert aggs.clear() == ["ex-000000000001"]


def test_pages_read_again_count_once(tmp_path: Path) -> None:
    aggs = Aggregates(tmp_path)
    walk = [{"n": i} for i in range(41)]
    summaries = [
        aggs.add("ex-000000000003", walk, url="p1", pages=3, key_fields=None).summary() for _ in range(3)
    ]
    assert summaries == ["41 unique rows from 3 pages"] * 3, "the same walk again reads the same pages"
    one = aggs.add("ex-000000000003", walk[:20], url="p1", pages=1, key_fields=None)
    assert one.summary() == "41 unique rows from 3 pages", "its first page alone is one of them"
    longer = aggs.add("ex-000000000003", [*walk, {"n": 41}], url="p1", pages=4, key_fields=None)
    assert longer.summary() == "42 unique rows from 4 pages", "a walk that went further adds what it added"
    other = aggs.add("ex-000000000003", [{"n": 50}], url="q1", pages=2, key_fields=None)
    assert other.summary() == "43 unique rows from 6 pages"
    # A page read alone first, then walked from: the walk's first page is that page.
    assert aggs.add("ex-000000000004", walk[:20], url="p1", pages=1, key_fields=None).doc.pages == 1
    assert aggs.add("ex-000000000004", walk, url="p1", pages=3, key_fields=None).doc.pages == 3
    # Kept across a restart of the host.
    aggs.flush()
    assert (
        Aggregates(tmp_path).add("ex-000000000003", walk, url="p1", pages=4, key_fields=None).doc.pages == 6
    )


def test_a_strategy_another_host_registered_is_found_on_disk(tmp_path: Path) -> None:
    mine, theirs = StrategyStore(tmp_path), StrategyStore(tmp_path)
    assert mine.all() == []  # loaded before the other one registers
    ex = theirs.register("https://a.example/list?page=2", {"selector": "li"}, 4, None).extraction_id
    theirs.flush()
    assert mine.get(ex).url_pattern == "https://a.example/list"
    for bad in ("ex-../../etc", "wf-x", "ex-0123456789ab"):
        with pytest.raises(TabPilotError) as info:
            mine.get(bad)
        assert info.value.code == ErrorCode.STRATEGY_NOT_FOUND


async def test_an_extract_that_finds_nothing_registers_and_repairs_nothing(tmp_path: Path) -> None:
    jobs, _, site = setup(tmp_path, [PAGES[0], []])
    ex = (await finish(jobs, EXTRACT))["extraction_id"]
    site.page = 1
    empty = await finish(jobs, {**EXTRACT, "schema": {"ticket": "td.id"}})
    assert empty["status"] == "complete" and "extraction_id" not in empty
    failed_repair = await finish(jobs, {**EXTRACT, "schema": {"ticket": "td.id"}, "extraction_id": ex})
    assert "extraction_id" not in failed_repair and "aggregate" not in failed_repair["metadata"]
    assert jobs.orchestrator.strategies.get(ex).spec["schema"] == SCHEMA
    assert [s.extraction_id for s in jobs.orchestrator.strategies.all()] == [ex]


async def test_a_script_strategy_reruns_and_aggregates_any_json(tmp_path: Path) -> None:
    pages = [[{"k": 1}, "loose", [1, 2]], [{"k": 1}, {"k": 2}]]
    at = {"page": 0}

    def script(c: Any) -> Any:
        return {"result": pages[at["page"]], "redacted": 0, "url": f"https://s.example/feed/{at['page'] + 7}"}

    browser = ScriptedBrowser({"extract_script": script})
    jobs = Jobs(browser, WorkflowStore(tmp_path / "data"), grace_s=0.05)
    req = {"operation": "extract", "script": "return rows", "css_selector": "main"}
    first = await finish(jobs, req)
    ex = first["extraction_id"]
    s = jobs.orchestrator.strategies.get(ex)
    assert (s.kind, s.url_pattern, s.spec) == (
        "script",
        "https://s.example/feed/*",
        {"script": "return rows", "css_selector": "main"},
    )
    at["page"] = 1
    browser.sent.clear()
    again = await finish(jobs, {"operation": "extract", "extraction_id": ex, "key_fields": ["k"]})
    assert browser.tags() == ["extract_script"] and again["data"] == [{"k": 1}, {"k": 2}]
    assert again["metadata"]["aggregate"] == "4 unique rows from 2 pages"


def test_aggregates_are_capped_and_read_back_only_when_asked(tmp_path: Path) -> None:
    aggs = Aggregates(tmp_path, cap=2)
    for i in range(3):
        aggs.add(f"ex-00000000000{i}", [{"n": i}], url=f"u{i}", pages=1, key_fields=None)
    aggs.flush()
    assert sorted(p.stem for p in (tmp_path / "aggregates").glob("*.json")) == [
        "ex-000000000001",
        "ex-000000000002",
    ]
    (tmp_path / "aggregates" / "ex-000000000002.json").write_text("[damaged")
    later = Aggregates(tmp_path)
    assert later._loaded == {}  # pyright: ignore[reportPrivateUsage]
    one = later.get("ex-000000000001")
    assert one is not None and one.doc.rows == [{"n": 1}] and one.summary() == "1 unique row from 1 page"
    assert later.get("ex-000000000002") is None and later.get("ex-../../etc/x") is None
