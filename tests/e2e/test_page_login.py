"""Logging in by refs on a cookie-session page, and the password never leaving the page: not in a
snapshot, a diff, an error, nor the host's or the bridge's logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER
from tabpilot.wire.errors import ErrorCode
from tests.support.mcp_client import call, call_error, mcp_client
from tests.support.snap import log_in, ref, snapshot

pytestmark = pytest.mark.anyio

PASSWORD = DEMO_PASSWORD


async def test_log_in_by_refs_and_stay_logged_in(client: Client, site: str) -> None:
    failed = await log_in(client, site, DEMO_USER, "not-the-password")
    assert failed["navigated"] is True and failed["url"].startswith(f"{site}/login.html?failed=1")

    done = await log_in(client, site, DEMO_USER, PASSWORD)
    assert done["navigated"] is True and done["url"] == f"{site}/private/table-1.html"
    assert "| K-1 | Person 1 | 1,000.50" in done["snapshot"]["text"].splitlines()

    # The session cookie opens the private pages from now on.
    again = await call(client, "interact", action="navigate", url=f"{site}/private/table-2.html")
    assert again["url"] == f"{site}/private/table-2.html"

    out = await call(client, "interact", action="navigate", url=f"{site}/logout")
    assert out["url"] == f"{site}/login.html"
    gated = await call(client, "interact", action="navigate", url=f"{site}/private/table-2.html")
    assert gated["url"].startswith(f"{site}/login.html?next=")

    # Enter in the password field submits the form, as it does for a person.
    text = (await snapshot(client))["text"]
    await call(client, "interact", action="fill", ref=ref(text, "textbox", "User"), value=DEMO_USER)
    password = ref(text, "password", "Password")
    await call(client, "interact", action="fill", ref=password, value=PASSWORD)
    entered = await call(client, "interact", action="press", ref=password, key="Enter", snapshot="none")
    assert entered["navigated"] is True and entered["url"] == f"{site}/private/table-2.html"


async def test_a_filled_password_never_leaves_the_page(
    pilot_on: None, env: dict[str, str], site: str
) -> None:
    seen: list[str] = []
    async with mcp_client(env, "--log-file") as client:
        await call(client, "interact", action="navigate", url=f"{site}/login.html")
        text = (await snapshot(client))["text"]
        password = ref(text, "password", "Password")
        filled = await call(client, "interact", action="fill", ref=password, value=PASSWORD, snapshot="diff")
        seen.append(str(filled))
        assert f'+ {password} password "Password" = [REDACTED]' in filled["snapshot"]["text"].splitlines()
        for mode in ("full", "diff"):
            seen.append(str(await snapshot(client, mode=mode)))
        for bad in (
            {"action": "select", "ref": password, "values": [PASSWORD]},
            {"action": "check", "ref": password},
            {"action": "press", "ref": password, "key": f"Control+{PASSWORD}"},
            {"action": "wait_for", "text": PASSWORD, "timeout_ms": 50},
        ):
            err = await call_error(client, "interact", **bad)
            assert err["error"] in (ErrorCode.INVALID_PARAMS, ErrorCode.TIMEOUT), err
            seen.append(str(err))
        form = await snapshot(client, scope="form")
        seen.append(str(form))
        assert f'{password} password "Password" = [REDACTED]' in form["text"].splitlines()
        # Submitting a form sends the password to the server, as a person's login does; the page
        # the browser lands on says nothing of it.
        seen.append(str(await call(client, "interact", action="click", ref=ref(text, "button", "Sign in"))))
    assert seen and not [s for s in seen if PASSWORD in s]
    logs = [p for p in Path(env["TABPILOT_STATE_DIR"]).rglob("*") if p.is_file()]
    assert any(p.name == "bridge.log" for p in logs)
    for path in logs:
        assert PASSWORD.encode() not in path.read_bytes(), f"{path} holds the password"
