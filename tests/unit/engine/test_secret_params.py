"""The value of a secret param (one named so, or a replay's that was never stored and that the person
typed on TabPilot's page) is a secret of the run wherever it shows: a field the page does not call
secret, the rows read back, a script's output. The run's answer and what it keeps say [REDACTED]."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.engine.test_jobs import finish, jobs_with, request

pytestmark = pytest.mark.anyio

SECRET = "pass-from-the-person-42"


def _echo_page(tmp_path: Path):  # the page shows back what was typed, in the rows and to a script
    typed: list[str] = []
    return jobs_with(
        tmp_path,
        fill=lambda c: typed.append(c.value) or {},  # not a password field: the page says nothing
        execute_js=lambda c: {"success": True, "result": f"field holds {' '.join(typed)}"},
    )


async def test_a_secret_param_is_scrubbed_whatever_field_took_it(tmp_path: Path) -> None:
    jobs, _ = _echo_page(tmp_path)
    steps = [
        {"type": "navigate", "url": "https://app.example/form"},
        {"type": "fill", "selector": "#code", "value": "{{params.api_token}}"},
        {"type": "execute_js", "script": "return document.querySelector('#code').value"},
    ]
    out = await finish(jobs, request(name="tok", steps=steps, params={"api_token": SECRET}))
    assert out["status"] == "complete", out
    assert SECRET not in str(out) and "[REDACTED]" in str(out)
    # A replay without it refuses; with the person's value the value is a secret of that run too.
    replayed = await finish(
        jobs, {"operation": "replay", "workflow_id": out["workflow_id"], "params": {"api_token": SECRET}}
    )
    assert replayed["status"] == "complete" and SECRET not in str(replayed), replayed
    await jobs.shutdown()  # results are written off the answer's path: let them land before looking
    kept = [p for p in (tmp_path / "data").rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert kept == []
