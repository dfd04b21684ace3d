"""Persistent sessions: log in once in a dedicated profile, stop it, launch it again: still logged in."""

from __future__ import annotations

import pytest

from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER
from tests.support import browser, procnet
from tests.support.mcp_client import call, mcp_client
from tests.support.snap import log_in

pytestmark = pytest.mark.anyio

PROFILE = "sessions"


async def test_a_dedicated_profile_stays_logged_in_across_launches(env: dict[str, str], site: str) -> None:
    launch = ("browser", "launch", "--profile", PROFILE, "--headless", "--detach")
    browser.tabpilot_cli(*launch, "--pilot", env=env)
    try:
        async with mcp_client(env) as client:
            gated = await call(client, "interact", action="navigate", url=f"{site}/private/table-1.html")
            assert gated["url"].startswith(f"{site}/login.html?next="), "not logged in yet"
            done = await log_in(client, site, DEMO_USER, DEMO_PASSWORD)
            assert done["url"] == f"{site}/private/table-1.html"
        browser.tabpilot_cli("browser", "stop", "--profile", PROFILE, env=env)

        # A new browser process on the same profile; the pilot is on only because this launch asks again
        # (a launch without --pilot leaves it off).
        browser.tabpilot_cli(*launch, "--pilot", env=env)
        async with mcp_client(env) as client:
            status = await call(client, "configure", action="status")
            assert status["pilot_enabled"] is True and status["browsers"][0]["profile"] == PROFILE
            page = await call(client, "interact", action="navigate", url=f"{site}/private/table-2.html")
            assert page["url"] == f"{site}/private/table-2.html", "the session survived the restart"
            assert page["title"] == "Ledger page 2"
    finally:
        browser.tabpilot_cli("browser", "stop", "--profile", PROFILE, env=env)
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
