"""Nothing typed into a password field reaches the disk: recorded workflows (whatever step typed it,
whatever the param is called, after a show-password toggle), results files, the host's and the
bridge's logs (which are 0600 in a 0700 directory). And `configure add_redaction` refuses a selector
that would break the others."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error, mcp_client, scrape, scrape_error
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


PARAM_X = "PARAM-S3CRET-X"
CREDENTIAL = "CRED-S3CRET-C"
TYPED = "TYPED-S3CRET-T"
DIRECT = "DIRECT-S3CRET-D"
PRESSED = ["Q", "7", "Z"]


def _files(*dirs: Path) -> dict[Path, str]:
    found: dict[Path, str] = {}
    for d in dirs:
        for path in d.rglob("*"):
            if path.is_file() and not path.is_socket():
                found[path] = path.read_bytes().decode(errors="replace")
    return found


def _leak(secret: str, files: dict[Path, str]) -> str | None:
    """Where `secret` is, with a little context, or None."""
    for path, text in files.items():
        at = text.find(secret)
        if at >= 0:
            return f"{path}: {text[max(0, at - 150) : at + 150]}"
    return None


async def test_nothing_typed_into_a_password_field_is_stored(
    pilot_on: None, env: dict[str, str], site: str
) -> None:
    url = f"{site}/disk/signin.html"
    steps = [
        {"type": "navigate", "url": url},
        {"type": "click", "selector": "#show"},  # #k1 becomes type=text: still a password field
        {"type": "fill", "selector": "#k1", "value": "{{params.x}}"},
        {"type": "type", "selector": "#k2", "text": TYPED},
        *({"type": "press", "selector": "#k3", "key": k} for k in PRESSED),
        {"type": "fill", "selector": "#u", "value": "{{params.user}}"},
        {"type": "fill", "selector": "#k2", "value": "{{params.credential}}"},
        {
            "type": "execute_js",
            "script": "[k1.type, k1.value, k2.value, k3.value].join('|')",
            "save_as": "peek",
        },
    ]
    params = {"user": "alice", "x": PARAM_X, "credential": CREDENTIAL}
    async with mcp_client(env, "--log-file") as client:
        recorded = await scrape(
            client, operation="workflow", name="signin", record=True, steps=steps, params=params,
            options={"delay_ms": 0},
        )  # fmt: skip
        peek = str(recorded["outputs"]["peek"])
        assert peek.startswith("text|"), "the toggle showed #k1 before the fill"
        for secret in (PARAM_X, CREDENTIAL, "Q7Z"):
            assert secret not in peek, f"{secret} came back in the script's output"
        workflow_id = recorded["workflow_id"]
        listed = await call(client, "observe", what="workflows")
        [doc] = [w for w in listed["workflows"] if w["workflow_id"] == workflow_id]
        assert {"x", "credential", "password"} <= set(doc["required_params"])
        assert len(doc["required_params"]) == 6, "one parameter for each key pressed into #k3"
        missing = await scrape_error(client, operation="replay", workflow_id=workflow_id)
        assert missing["error"] == ErrorCode.INVALID_PARAMS
        # Keys pressed one by one replay as one key each.
        again = {k: "a" if k.startswith("secret_") else f"R{i}" for i, k in enumerate(doc["required_params"])}
        replayed = await scrape(client, operation="replay", workflow_id=workflow_id, params=again)
        assert replayed["status"] == "complete"
        # A direct action, not a workflow: nothing of it may reach a log either.
        await call(client, "interact", action="type", selector="#k3", text=DIRECT)
    # The bridge has exited: its log is complete.
    state, data = Path(env["TABPILOT_STATE_DIR"]), Path(env["TABPILOT_DATA_DIR"])
    files = _files(state, data)
    stored = [p for p in files if p.name == f"{workflow_id}.json"]
    assert stored, "the workflow was recorded"
    assert any(p.parent.name == "results" for p in files), "results were kept"
    logs = {p.name for p in files if p.parent == state / "log"}
    assert {"host.log", "bridge.log"} <= logs
    for secret in (PARAM_X, CREDENTIAL, TYPED, DIRECT):
        assert _leak(secret, files) is None, f"{secret} is on disk: {_leak(secret, files)}"
    workflow = files[stored[0]]
    for key in PRESSED:
        assert f'"key":"{key}"' not in workflow.replace(" ", ""), f"the pressed {key} is stored"
    log_dir = state / "log"
    assert stat.S_IMODE(log_dir.stat().st_mode) == 0o700
    for name in logs:
        assert stat.S_IMODE((log_dir / name).stat().st_mode) == 0o600, name


async def test_add_redaction_refuses_a_selector_that_would_break_the_others(
    client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/disk/signin.html")
    for bad in (["b/*"], [".later-secret", "b/*"], ["a{}"], ["[data-x"], ["a,"]):
        err = await call_error(client, "configure", action="add_redaction", selectors=bad)
        assert err["error"] == ErrorCode.INVALID_SELECTOR, (bad, err)
    body = {"all": ":scope"}
    before = await scrape(client, operation="extract", selector="body", schema=body)
    assert "LATER-S3CRET-L" in before["data"][0]["all"], "the refused call added nothing"
    added = await call(client, "configure", action="add_redaction", selectors=[".later-secret"])
    assert added["added"] == [".later-secret"] and "b/*" not in added["selectors"]
    after = await scrape(client, operation="extract", selector="body", schema=body)
    text = after["data"][0]["all"]
    assert "LATER-S3CRET-L" not in text and "Recovery code [REDACTED] for your records" in text
