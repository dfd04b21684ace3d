"""Dedicated profiles: opted in once by the person at the terminal, started on demand by the bridge."""

from __future__ import annotations

import pytest

from tests.support import browser, procnet
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


async def test_mcp_launch_starts_the_profile_when_no_browser_is_connected(
    env: dict[str, str], site: str
) -> None:
    # The person opts the profile in from a terminal, once...
    browser.tabpilot_cli(
        "browser", "launch", "--profile", "work", "--headless", "--pilot", "--detach", env=env
    )
    browser.tabpilot_cli("browser", "stop", "--profile", "work", env=env)
    try:
        # ...and later the agent's first call brings the browser back by itself, pilot still on.
        async with mcp_client(env, "--launch", "work", "--headless") as client:
            nav = await call(client, "interact", action="navigate", url=f"{site}/second.html")
            assert nav["title"] == "Second fixture page"
            status = await call(client, "configure", action="status")
            [info] = status["browsers"]
            assert info["profile"] == "work" and status["pilot_enabled"] is True
    finally:
        browser.tabpilot_cli("browser", "stop", "--profile", "work", env=env)
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
