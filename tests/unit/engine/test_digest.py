"""The page digest and operation suggest in the engine, against a scripted page: drafts become
mini-language schemas whose samples are converted as extract converts, bad drafts are left out, the
request is checked, and a page error comes back with its code."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.context import Context, RunState
from tabpilot.engine.digest import candidate, page_digest, spec_text
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.engine.steps.extract import compiled
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.replies import Candidate
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio

SKELETON = {"selector": "#orders", "html": "<table id=orders></table>", "bytes": 25, "truncated": False}
PAGE_CANDIDATE: dict[str, Any] = {
    "kind": "table",
    "selector": "#orders > tbody > tr",
    "fields": [
        {"name": "order", "selector": "td.id", "take": "text", "attr": None},
        {"name": "amount", "selector": "td.amount", "take": "text", "attr": None},
        {"name": "link", "selector": "td a", "take": "url", "attr": None},
        {"name": "image", "selector": "img", "take": "attr", "attr": "data-src"},
        {"name": "tags", "selector": "ul > li", "take": "text", "attr": None, "all": True},
        {"name": "detail", "selector": "+ dd", "take": "text", "attr": None},
    ],
    "converts": {"amount": "number"},
    "rows": 12,
    "sample": [
        ["SO-1", "$1,234.50", "https://x.test/1", "/a.jpg", ["new", "blue"], "d1"],
        ["SO-2", "n/a", None, None, [], None],
    ],
    "next_selector": 'a[rel~="next"]',
    "score": 72.0,
}


def drafted(raw: Any) -> dict[str, Any] | None:
    """`candidate` of a page candidate given as JSON."""
    return candidate(msgspec.convert(raw, Candidate))


def page(answer: dict[str, Any]) -> ScriptedBrowser:
    return ScriptedBrowser({"suggest": lambda c: answer})


def test_spec_text_is_the_shortest_form_the_parser_reads_back() -> None:
    assert spec_text("td.x", "text", None, False, None) == "td.x"
    assert spec_text(":scope", "url", None, False, None) == ":scope | url"
    assert spec_text("img", "attr", "src", False, None) == "img | attr:src"
    assert spec_text("li", "text", None, True, "number") == "li | all | number"


def test_a_candidate_becomes_a_schema_with_samples_converted_as_extract_converts() -> None:
    out = drafted(PAGE_CANDIDATE)
    assert out is not None
    assert out["schema"] == {
        "order": "td.id",
        "amount": "td.amount | number",
        "link": "td a | url",
        "image": "img | attr:data-src",
        "tags": "ul > li | all",
        "detail": "+ dd",
    }
    assert out["sample"][0] == {
        "order": "SO-1",
        "amount": 1234.5,
        "link": "https://x.test/1",
        "image": "/a.jpg",
        "tags": ["new", "blue"],
        "detail": "d1",
    }
    assert out["sample"][1]["amount"] is None  # "n/a" is not a number, as in extract
    assert compiled(out["schema"])  # the schema parses as extract parses it
    assert (out["rows"], out["kind"], out["next_selector"], out["score"]) == (
        12,
        "table",
        'a[rel~="next"]',
        72.0,
    )


def test_fields_the_grammar_cannot_say_are_left_out_with_their_column() -> None:
    raw = dict(PAGE_CANDIDATE)
    raw["fields"] = [
        {"name": "order", "selector": "td.id", "take": "text"},
        {"name": "bad", "selector": "td", "take": "attr", "attr": None},  # attr without a name
        {"name": "weird", "selector": "td", "take": "attr", "attr": "a b"},  # not an attribute name
        {"name": "order", "selector": "td.dup", "take": "text"},  # a name twice
    ]
    out = drafted(raw)
    assert out is not None and out["schema"] == {"order": "td.id"}
    assert out["sample"] == [{"order": "SO-1"}, {"order": "SO-2"}]


@pytest.mark.parametrize("raw", [{}, {"selector": "li"}, {"selector": "li", "fields": []}])
def test_unusable_candidates_are_dropped(raw: Any) -> None:
    assert drafted(raw) is None


@pytest.mark.parametrize(
    "answer",
    [
        {"candidates": [{"selector": "li", "fields": [{"take": "text"}]}]},  # a field without its name
        {"candidates": ["x"]},
        {"candidates": [PAGE_CANDIDATE], "skeleton": "<table>"},
        ["not", "an", "object"],
    ],
)
async def test_a_malformed_suggest_reply_is_malformed_reply(answer: Any) -> None:
    ctx = Context(page(answer), RunState(steps_total=1))
    with pytest.raises(TabPilotError) as caught:
        await page_digest(ctx)
    assert caught.value.code == ErrorCode.MALFORMED_REPLY


async def test_page_digest_asks_the_page_once_and_shapes_its_answer() -> None:
    browser = page(
        {"candidates": [PAGE_CANDIDATE, {"bogus": 1}], "skeleton": SKELETON, "url": "https://x.test/"}
    )
    ctx = Context(browser, RunState(steps_total=1))
    out = await page_digest(ctx, query="orders", css_selector="main")
    assert set(out) == {"candidates", "skeleton", "url"}
    assert [c["selector"] for c in out["candidates"]] == ["#orders > tbody > tr"]
    assert out["skeleton"] == SKELETON and out["url"] == "https://x.test/"
    (sent,) = browser.sent
    assert isinstance(sent, m.Suggest) and (sent.query, sent.css_selector) == ("orders", "main")


async def test_operation_suggest_answers_candidates_skeleton_hint_and_metadata() -> None:
    answer = {"candidates": [PAGE_CANDIDATE], "skeleton": SKELETON, "url": "https://x.test/", "elements": 183}
    browser = page(answer | {"duration_ms": 4.5})
    p = build_plan(parse_request({"operation": "suggest", "query": "orders"}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-1")
    assert out["status"] == "complete" and out["correlation_id"] == "corr-1"
    assert out["candidates"][0]["schema"]["amount"] == "td.amount | number"
    assert out["skeleton"] == SKELETON and "extract" in out["hint"]
    assert out["metadata"]["elements"] == 183 and out["metadata"]["url"] == "https://x.test/"
    assert "data" not in out
    assert browser.tags(telemetry=True) == ["suggest"]  # one read, no telemetry round trip


async def test_no_candidates_says_what_to_do_instead() -> None:
    browser = page({"candidates": [], "skeleton": SKELETON, "url": "https://x.test/"})
    p = build_plan(parse_request({"operation": "suggest"}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-2")
    assert out["candidates"] == [] and "script" in out["hint"]


async def test_a_page_error_is_a_suggest_error_with_its_code() -> None:
    def missing(c: m.Suggest) -> TabPilotError:
        return TabPilotError(
            ErrorCode.ELEMENT_NOT_FOUND, "no element matches", data={"selector": c.css_selector}
        )

    p = build_plan(parse_request({"operation": "suggest", "css_selector": "#nope"}))
    out = result.response(await runner.run(p, ScriptedBrowser({"suggest": missing}), grace_s=0.05), p, "c")
    assert out["status"] == "error" and out["error"] == ErrorCode.ELEMENT_NOT_FOUND
    assert out["selector"] == "#nope" and "candidates" not in out


@pytest.mark.parametrize(
    "bad",
    [
        {"selector": "li"},
        {"schema": {"a": "b"}},
        {"script": "return 1"},
        {"steps": []},
        {"use_cache": True},
        {"query": "x" * 501},
        {"css_selector": ""},
    ],
)
def test_suggest_requests_that_mix_in_other_operations_are_invalid_params(bad: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as err:
        build_plan(parse_request({"operation": "suggest", **bad}))
    assert err.value.code == ErrorCode.INVALID_PARAMS


async def test_suggest_proposes_the_best_candidates_call_and_summarises_the_others() -> None:
    paged = PAGE_CANDIDATE | {
        "paging": {
            "kind": "numbered",
            "why": "a numbered pager with no next link",
            "paginate": {"next_selector": "p.paginator > span.this-page + a", "max_pages": 50},
        }
    }
    other = {
        "kind": "list",
        "selector": "ul.tags > li",
        "fields": [{"name": "tag", "selector": ":scope", "take": "text", "attr": None}],
        "rows": 4,
        "score": 3,
    }
    browser = page({"candidates": [paged, other], "skeleton": SKELETON, "url": "https://x.test/"})
    p = build_plan(parse_request({"operation": "suggest"}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-3")
    best = out["candidates"][0]
    assert out["call"] == {
        "action": "scrape",
        "operation": "extract",
        "selector": "#orders > tbody > tr",
        "schema": best["schema"],
        "options": {"paginate": {"next_selector": "p.paginator > span.this-page + a", "max_pages": 50}},
    }
    # The call is what the bridge's scrape request reads (the paging options are the extract's own).
    assert parse_request({k: v for k, v in out["call"].items() if k != "action"}).operation == "extract"
    assert best["paging"] == {"kind": "numbered", "why": "a numbered pager with no next link"}
    assert out["candidates"][1] == {
        "kind": "list",
        "selector": "ul.tags > li",
        "rows": 4,
        "fields": ["tag"],
        "score": 3,
    }


@pytest.mark.parametrize(
    ("paging", "options"),
    [
        ({"kind": "grid", "why": "w", "scroll": {"max_scrolls": 240}}, {"scroll": {"max_scrolls": 240}}),
        (
            {"kind": "feed", "why": "w", "scroll": {"max_scrolls": 50, "quiet_ms": 500}},
            {"scroll": {"max_scrolls": 50}},
        ),
        (None, None),
        ({"kind": "mystery", "why": "nothing to pass"}, None),
    ],
)
async def test_the_proposed_options_say_only_what_differs_from_the_defaults(
    paging: dict[str, Any] | None, options: dict[str, Any] | None
) -> None:
    raw = PAGE_CANDIDATE | ({"paging": paging} if paging else {})
    browser = page({"candidates": [raw], "skeleton": SKELETON, "url": "https://x.test/"})
    p = build_plan(parse_request({"operation": "suggest"}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-4")
    assert out["call"].get("options") == options
    assert ("paging" in out["candidates"][0]) == (options is not None)


@pytest.mark.parametrize(
    ("first", "opening"),
    [
        (
            {"url": "https://x.test/orders?page=1"},
            {"type": "navigate", "url": "https://x.test/orders?page=1"},
        ),
        ({"selector": "button.first-page"}, {"type": "click", "selector": "button.first-page"}),
    ],
)
async def test_a_list_shown_from_a_later_page_is_read_from_its_first(
    first: dict[str, Any], opening: dict[str, Any]
) -> None:
    paginate = {"next_selector": "a.next", "max_pages": 50}
    raw = PAGE_CANDIDATE | {"paging": {"kind": "next_link", "why": "w", "paginate": paginate, "first": first}}
    browser = page({"candidates": [raw], "skeleton": SKELETON, "url": "https://x.test/orders?page=3"})
    p = build_plan(parse_request({"operation": "suggest"}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-5")
    best = out["candidates"][0]
    extract = {
        "type": "extract",
        "selector": best["selector"],
        "schema": best["schema"],
        "paginate": paginate,
    }
    assert out["call"] == {"action": "scrape", "operation": "workflow", "steps": [opening, extract]}
    assert best["paging"]["first"] == first
    # The workflow is one the bridge's scrape request reads and the engine plans.
    plan = build_plan(parse_request({k: v for k, v in out["call"].items() if k != "action"}))
    assert [type(s).__name__ for s in plan.steps] == [f"{opening['type'].title()}Step", "ExtractStep"]
