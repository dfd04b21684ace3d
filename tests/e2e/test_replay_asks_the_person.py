"""A replay after a logout needs the password, which a recording never stores. A client with MCP
elicitation is asked for it: the person (here the SDK client's elicitation callback) is sent to a
TabPilot page on this computer and types it there, so it never passes through the client or the agent;
the replay then logs in and scrapes. A client without elicitation gets an error that names the secret
and says to ask the person. Either way no field of the login form is filled before every param the
login needs is at hand. Real Chromium, `tabpilot mcp` over stdio, on both protocol eras."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import TABPILOT, call, mcp_client, scrape, scrape_error
from tests.support.snap import js

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]
site = pages.site_with_login  # these tests need the server's sign-in and sessions

LOGIN_FORM = {"exists": "form.login"}
KEYS = ["K-1", "K-2", "K-3"]


def _steps(site: Site) -> list[dict[str, Any]]:
    return [
        {"type": "navigate", "url": f"{site.url}/private/table-1.html"},
        {"type": "fill", "selector": "[name=username]", "value": "{{params.user}}", "if": LOGIN_FORM},
        {"type": "fill", "selector": "[name=password]", "value": "{{params.password}}", "if": LOGIN_FORM},
        {"type": "click", "selector": "form.login button", "if": LOGIN_FORM},
        {"type": "extract", "selector": "table.ledger tbody tr", "schema": {"key": ".key"}},
    ]


class Person:
    """Answers URL-mode elicitations as a person would: opens the page and types the password there."""

    def __init__(self, password: str | None) -> None:
        self.password = password
        self.asked: list[types.ElicitRequestParams] = []

    def _type_it(self, url: str) -> str:
        with urllib.request.urlopen(url, timeout=10) as page:
            form = page.read().decode()
        names = re.findall(r'type="password" name="([^"]+)"', form)
        assert names == ["password"], form
        body = urllib.parse.urlencode({"password": self.password}).encode()
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=10) as done:
            return done.read().decode()

    async def __call__(
        self, _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params)
        if self.password is None or not isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action="decline")
        answered = await anyio.to_thread.run_sync(self._type_it, params.url)
        assert "TabPilot has it" in answered
        return types.ElicitResult(action="accept")


@asynccontextmanager
async def _client(env: dict[str, str], person: Person, mode: str) -> AsyncIterator[Client]:
    server = StdioServerParameters(command=TABPILOT, args=["mcp"], env=env)
    async with Client(server, read_timeout_seconds=60, elicitation_callback=person, mode=mode) as client:  # type: ignore[arg-type]
        yield client


async def _record(env: dict[str, str], site: Site) -> str:
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
        recorded = await scrape(
            client,
            operation="workflow",
            name="ledger_ask",
            record=True,
            steps=_steps(site),
            params={"user": site.user, "password": site.password},
        )
        await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    return str(recorded["workflow_id"])


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # 2026-07-28 (input_required), 2025-11-25 (mid-call)
async def test_a_replay_asks_the_person_for_the_password(env: dict[str, str], site: Site, mode: str) -> None:
    workflow_id = await _record(env, site)
    person = Person(site.password)
    async with _client(env, person, mode) as client:
        out = await scrape(client, operation="replay", workflow_id=workflow_id)
        assert [r["key"] for r in out["data"]] == KEYS
        [asked] = person.asked
        assert isinstance(asked, types.ElicitRequestURLParams) and asked.url.startswith("http://127.0.0.1:")
        assert "password" in asked.message and site.password not in asked.message
        assert site.password not in str(out)
        # The page was for one answer: its address is gone.
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(asked.url, timeout=10)
        await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")


async def test_without_an_answer_the_error_names_the_secret_and_nothing_is_filled(
    env: dict[str, str], site: Site
) -> None:
    workflow_id = await _record(env, site)
    # A client without elicitation, and a person who declines: the agent is told to ask the person.
    async with mcp_client(env) as plain, _client(env, Person(None), "auto") as declining:
        for client in (plain, declining):
            asked = await scrape_error(client, operation="replay", workflow_id=workflow_id)
            assert asked["error"] == ErrorCode.INVALID_PARAMS and asked["missing_params"] == ["password"]
            assert asked["secret_params"] == ["password"] and "ask the person" in asked["message"]
            # The login form stands as it was: not even the username was typed.
            assert await js(client, "document.querySelector('[name=username]').value") == ""
