"""A recorded login-then-scrape workflow replayed after the session expired: a navigate that lands on
the login page goes on to the steps guarded by `if`, and params are asked for only by steps that run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine import result, runner, workflows
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.engine.store import WorkflowStore
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.scrape import ReplayRequest
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio

ISSUES = "https://tracker.example/issues"
LOGIN = "https://tracker.example/login?next=/issues"
GUARD = {"exists": "#id_username"}
STEPS: list[dict[str, Any]] = [
    {"type": "navigate", "url": ISSUES},
    {"type": "fill", "selector": "#id_username", "value": "{{params.user}}", "if": GUARD},
    {"type": "fill", "selector": "#id_password", "value": "{{params.password}}", "if": GUARD},
    {"type": "click", "selector": "button[type=submit]", "if": GUARD},
    {"type": "extract", "selector": "tr", "schema": {"id": "td"}},
]


class Tracker:
    """A site whose session may have expired: the issue list bounces to the login page until a login."""

    def __init__(self, *, logged_in: bool) -> None:
        self.logged_in = logged_in
        self.url = ""
        self.filled: dict[str, str] = {}

    def browser(self) -> ScriptedBrowser:
        return ScriptedBrowser(
            {
                "navigate": self.navigate,
                "count": lambda c: {"count": int(self.url == LOGIN), "visible": int(self.url == LOGIN)},
                "fill": lambda c: self.filled.update({c.selector: c.value}) or {},
                "click": self.click,
                "extract": lambda c: {
                    "rows": [["I-1"], ["I-2"]],
                    "count": 2,
                    "url": self.url,
                    "type": "text/html",
                },
            }
        )

    def navigate(self, c: Any) -> Any:
        self.url = c.url if self.logged_in else LOGIN
        return {"tab_id": 1, "url": self.url, "title": "t"}

    def click(self, c: Any) -> Any:
        self.logged_in, self.url = True, ISSUES
        return {"navigated": True, "url": ISSUES}


async def run(tracker: Tracker, params: dict[str, Any]) -> dict[str, Any]:
    p = build_plan(parse_request({"operation": "workflow", "steps": STEPS, "params": params}))
    return result.response(await runner.run(p, tracker.browser(), grace_s=0.05), p, "corr-test")


async def test_a_live_session_skips_the_login_and_needs_no_password() -> None:
    tracker = Tracker(logged_in=True)
    out = await run(tracker, {"user": "ada"})
    assert out["status"] == "complete" and [r["id"] for r in out["data"]] == ["I-1", "I-2"]
    assert out["metadata"]["skipped_steps"] == [1, 2, 3] and tracker.filled == {}


async def test_an_expired_session_bounces_to_the_login_and_the_guarded_steps_log_in() -> None:
    tracker = Tracker(logged_in=False)
    out = await run(tracker, {"user": "ada", "password": "s3cret-pw"})
    assert out["status"] == "complete" and len(out["data"]) == 2
    assert tracker.filled == {"#id_username": "ada", "#id_password": "s3cret-pw"}
    assert any("log in" in w["message"] for w in out["metadata"]["warnings"])


async def test_a_login_step_that_must_run_without_its_param_asks_for_it() -> None:
    tracker = Tracker(logged_in=False)
    out = await run(tracker, {"user": "ada"})
    assert out["error"] == ErrorCode.INVALID_PARAMS and out["missing_params"] == ["password"]
    assert out["secret_params"] == ["password"] and "ask the person" in out["message"]
    # Asked before the first login step: no field is filled while a param the login needs is missing.
    assert out["failed_step"] == 1 and tracker.filled == {}


async def test_without_guarded_steps_a_bounce_is_still_navigation_redirect() -> None:
    p = build_plan(parse_request({"operation": "workflow", "steps": [STEPS[0], STEPS[4]]}))
    out = result.response(await runner.run(p, Tracker(logged_in=False).browser(), grace_s=0.05), p, "c")
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT


def test_an_unconditional_step_still_needs_its_param_up_front() -> None:
    steps = [STEPS[0], {"type": "fill", "selector": "#q", "value": "{{params.password}}"}]
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request({"operation": "workflow", "steps": steps}))
    assert caught.value.code == ErrorCode.INVALID_PARAMS


async def test_a_replay_asks_for_the_password_only_when_a_step_that_always_runs_needs_it(
    tmp_path: Path,
) -> None:
    store = WorkflowStore(tmp_path)
    recorded = build_plan(
        parse_request(
            {
                "operation": "workflow",
                "steps": STEPS,
                "params": {"user": "ada", "password": "pw"},
                "name": "issues",
            }
        )
    )
    outcome = await runner.run(recorded, Tracker(logged_in=False).browser(), grace_s=0.05)
    doc = workflows.record(recorded, outcome)
    assert doc.required_params == ["password"]
    workflow_id = store.save(doc)
    plan = workflows.replay_plan(ReplayRequest(workflow_id=workflow_id), store)
    replayed = result.response(
        await runner.run(plan, Tracker(logged_in=True).browser(), grace_s=0.05), plan, "c"
    )
    assert replayed["status"] == "complete" and len(replayed["data"]) == 2

    always = [
        {"type": "navigate", "url": ISSUES},
        {"type": "fill", "selector": "#p", "value": "{{params.password}}"},
    ]
    plain = build_plan(
        parse_request(
            {"operation": "workflow", "steps": always, "params": {"password": "pw"}, "name": "plain"}
        )
    )
    doc = workflows.record(plain, await runner.run(plain, Tracker(logged_in=True).browser(), grace_s=0.05))
    with pytest.raises(TabPilotError) as caught:
        workflows.replay_plan(ReplayRequest(workflow_id=store.save(doc)), store)
    assert caught.value.code == ErrorCode.INVALID_PARAMS and caught.value.data == {
        "missing_params": ["password"],
        "secret_params": ["password"],
        "sites": ["tracker.example"],  # what the person is told the secret is for
    }
