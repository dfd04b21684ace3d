"""The workflow runner when things go wrong: timeouts retried or not, failures recorded or fatal, a tab
closed or reloaded under a new id, a login page, the extension gone, a cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import HANG, ScriptedBrowser, TableSite
from tests.unit.engine.test_runner import PAGES, SCHEMA, plan, run, workflow

pytestmark = pytest.mark.anyio


async def test_timeout_is_retried_then_succeeds() -> None:
    attempts: list[int] = []

    def click(c: m.Click) -> Any:
        attempts.append(1)
        return TabPilotError(ErrorCode.TIMEOUT, "slow") if len(attempts) < 3 else {}

    out = await run(
        workflow(
            {"type": "click", "selector": "a"}, error_recovery={"on_timeout": "retry_step", "max_retries": 2}
        ),
        ScriptedBrowser({"click": click}),
    )
    assert out["status"] == "complete" and len(attempts) == 3 and out["metadata"]["retries"] == 2


async def test_a_retry_follows_a_tab_reloaded_under_a_new_id() -> None:
    def execute_js(c: m.ExecuteJs) -> Any:
        if c.tab_id == 5:  # the page hung in the script: discarded and reloaded as tab 9
            return TabPilotError(ErrorCode.TIMEOUT, "loop", data={"recovered": "reloaded", "new_tab_id": 9})
        return {"tab": c.tab_id}

    browser = ScriptedBrowser(
        {"navigate": lambda c: {"tab_id": 5, "url": c.url}, "execute_js": execute_js, "press": lambda c: {}}
    )
    out = await run(
        workflow(
            {"type": "navigate", "url": "https://a.example/"},
            {"type": "execute_js", "script": "while (true) {}", "save_as": "r"},
            {"type": "press", "key": "Tab"},
            error_recovery={"on_timeout": "retry_step", "max_retries": 1},
        ),
        browser,
    )
    assert out["status"] == "complete", out
    assert [getattr(c, "tab_id", None) for c in browser.sent if m.tag_of(type(c)) != "telemetry"] == [
        None,
        5,
        9,
        9,
    ]


async def test_without_retry_a_timeout_aborts_with_partial_data() -> None:
    site = TableSite(PAGES[:1])
    browser = site.install(ScriptedBrowser({"click": lambda c: TabPilotError(ErrorCode.TIMEOUT, "slow")}))
    out = await run(
        workflow(
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
            {"type": "click", "selector": "a"},
            {"type": "press", "key": "Tab"},
        ),
        browser,
    )
    assert out["status"] == "error" and out["error"] == ErrorCode.TIMEOUT and out["failed_step"] == 1
    assert len(out["data"]) == 2 and out["steps_completed"] == 1
    assert browser.tags().count("click") == 1 and "press" not in browser.tags()


async def test_continue_records_the_failure_and_goes_on() -> None:
    site = TableSite(PAGES[:1])
    browser = site.install(
        ScriptedBrowser({"click": lambda c: TabPilotError(ErrorCode.ELEMENT_NOT_FOUND, "no")})
    )
    out = await run(
        workflow(
            {"type": "click", "selector": "a"},
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
            error_recovery={"on_failure": "continue"},
        ),
        browser,
    )
    assert out["status"] == "complete" and len(out["data"]) == 2
    assert out["metadata"]["errors"] == [{"step": 0, "error": "element_not_found", "message": "no"}]


async def test_tab_closed_aborts_even_with_continue() -> None:
    site = TableSite(PAGES)
    browser = site.install(ScriptedBrowser())
    calls = iter([None, TabPilotError(ErrorCode.TAB_CLOSED, "closed")])
    browser.handlers["paginate"] = lambda c: next(calls) or site.paginate(c)
    out = await run(
        plan(
            operation="workflow",
            steps=[
                {
                    "type": "extract",
                    "selector": "tr",
                    "schema": SCHEMA,
                    "paginate": {"next_selector": "a", "delay_ms": 0},
                },
                {"type": "press", "key": "x"},
            ],
            error_recovery={"on_failure": "continue"},
        ),
        browser,
    )
    assert out["status"] == "error" and out["error"] == ErrorCode.TAB_CLOSED
    assert [r["name"] for r in out["data"]] == ["a", "b", "c"], "pages read before the tab closed"


@pytest.mark.parametrize(
    ("answered", "code"), [(True, ErrorCode.TAB_CLOSED), (False, ErrorCode.TAB_NOT_FOUND)]
)
async def test_the_run_s_tab_gone_between_two_commands_is_tab_closed(answered: bool, code: ErrorCode) -> None:
    # No tab with the run's id any more, once a command in it was answered: it was closed, as one closed
    # during a command says; a tab that never answered is only not found.
    gone = TabPilotError(ErrorCode.TAB_NOT_FOUND, "no tab with id 5")
    browser = ScriptedBrowser(
        {
            "navigate": lambda c: {"tab_id": 5, "url": c.url} if answered else gone,
            "press": lambda c: gone,
        }
    )
    steps = [{"type": "navigate", "url": "https://a.example/"}, {"type": "press", "key": "Tab"}]
    out = await run(workflow(*steps), browser)
    assert out["status"] == "error" and out["error"] == code, out


async def test_login_redirect_is_navigation_redirect_with_partial_data() -> None:
    site = TableSite(PAGES[:1])
    browser = site.install(ScriptedBrowser())
    browser.handlers["navigate"] = lambda c: (
        {"tab_id": 3, "url": "https://sso.example/login?next=x", "title": "Sign in"}
        if "reports" in c.url
        else {"tab_id": 3, "url": c.url, "title": "t"}
    )
    out = await run(
        workflow(
            {"type": "navigate", "url": "https://app.example/list"},
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
            {"type": "navigate", "url": "https://app.example/reports"},
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
        ),
        browser,
    )
    assert out["status"] == "error" and out["error"] == ErrorCode.NAVIGATION_REDIRECT
    assert out["redirect_url"] == "https://sso.example/login?next=x" and out["failed_step"] == 2
    assert len(out["data"]) == 2


async def test_same_site_redirects_that_are_not_logins_pass() -> None:
    browser = ScriptedBrowser(
        {"navigate": lambda c: {"tab_id": 1, "url": "https://www.app.example/list/", "title": ""}}
    )
    out = await run(workflow({"type": "navigate", "url": "http://app.example/list"}), browser)
    assert out["status"] == "complete"


async def test_extension_gone_mid_workflow_times_out_with_partial_data() -> None:
    site = TableSite(PAGES)
    browser = site.install(ScriptedBrowser())
    browser.handlers["paginate"] = lambda c: HANG
    out = await run(
        plan(
            operation="workflow",
            steps=[
                {
                    "type": "extract",
                    "selector": "tr",
                    "schema": SCHEMA,
                    "timeout_ms": 10,
                    "paginate": {"next_selector": "a", "delay_ms": 0},
                }
            ],
            error_recovery={"on_timeout": "retry_step", "max_retries": 1},
        ),
        browser,
    )
    assert out["status"] == "error" and out["error"] == ErrorCode.TIMEOUT
    assert len(out["data"]) == 2 and browser.tags().count("paginate") == 2


async def test_disconnect_error_is_fatal_with_partial_data() -> None:
    site = TableSite(PAGES[:1])
    browser = site.install(
        ScriptedBrowser({"click": lambda c: TabPilotError(ErrorCode.EXTENSION_DISCONNECTED, "gone")})
    )
    out = await run(
        workflow(
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
            {"type": "click", "selector": "a"},
            error_recovery={"on_failure": "continue"},
        ),
        browser,
    )
    assert out["error"] == ErrorCode.EXTENSION_DISCONNECTED and len(out["data"]) == 2


async def test_cancellation_returns_partial_data() -> None:
    site = TableSite(PAGES)
    browser = site.install(ScriptedBrowser())
    reached = asyncio.Event()

    async def paginate(c: m.Paginate) -> Any:
        reached.set()
        await asyncio.Event().wait()

    browser.handlers["paginate"] = paginate
    p = plan(
        operation="extract",
        selector="tr",
        schema=SCHEMA,
        options={"paginate": {"next_selector": "a", "delay_ms": 0}},
    )
    task = asyncio.ensure_future(runner.run(p, browser))
    await reached.wait()
    task.cancel()
    outcome = await task
    out = result.response(outcome, p, "c")
    assert out["status"] == "cancelled" and out["error"] == ErrorCode.CANCELLED and len(out["data"]) == 2
