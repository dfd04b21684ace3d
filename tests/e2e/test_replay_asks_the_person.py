"""A replay after a logout needs the password, which a recording never stores. A client with MCP
elicitation is asked to tell the person that TabPilot opened a tab in their own browser: the person
types the password there (TabPilot's extension page), so it passes through neither the MCP client nor
the agent, and the replay logs in and scrapes. A person who declines, and a client without elicitation,
get the error that names the secret and says to ask the person, and no field of the login form is
filled. Real Chromium, the real extension, `tabpilot mcp` over stdio (traffic recorded), on both
protocol eras the SDK speaks."""

from __future__ import annotations

import json
import shlex
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
import websocket
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext
from selenium import webdriver

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import browser, pages
from tests.support.mcp_client import TABPILOT, call, scrape, scrape_error
from tests.support.snap import js

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions

LOGIN_FORM = {"exists": "form.login"}
KEYS = ["K-1", "K-2", "K-3"]
WAIT_S = 20


def _steps(site: Site) -> list[dict[str, Any]]:
    return [
        {"type": "navigate", "url": f"{site.url}/private/table-1.html"},
        {"type": "fill", "selector": "[name=username]", "value": "{{params.user}}", "if": LOGIN_FORM},
        {"type": "fill", "selector": "[name=password]", "value": "{{params.password}}", "if": LOGIN_FORM},
        {"type": "click", "selector": "form.login button", "if": LOGIN_FORM},
        {"type": "extract", "selector": "table.ledger tbody tr", "schema": {"key": ".key"}},
    ]


READY = """new Promise((resolve) => {
  const ready = () => document.querySelector('#ask:not([hidden]) input[type=password][name=password]');
  const done = () => { ready().focus(); resolve(document.body.innerText); };
  if (ready()) return done();
  new MutationObserver((_, seen) => { if (ready()) { seen.disconnect(); done(); } })
    .observe(document, { subtree: true, childList: true, attributes: true });
})"""


def _ask_tabs(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """TabPilot's ask pages open in the browser (DevTools targets: chromedriver lists no tab that an
    extension opened on one of its own pages)."""
    address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    with urllib.request.urlopen(f"http://{address}/json/list", timeout=WAIT_S) as listed:
        targets: list[dict[str, Any]] = json.load(listed)
    return [t for t in targets if t["type"] == "page" and "/ask.html#" in t["url"]]


def _tabpilot_pids(env: dict[str, str]) -> list[int]:
    """The native host and the `tabpilot mcp` bridges of this test's TABPILOT_* dirs."""
    wanted = f"TABPILOT_RUNTIME_DIR={env['TABPILOT_RUNTIME_DIR']}".encode()
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
            environ = (entry / "environ").read_bytes() if cmdline else b""
        except OSError:
            continue
        ours = b"tabpilot.cli\0native" in cmdline or cmdline.endswith(b"tabpilot\0mcp\0")
        if ours and wanted in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _network_sockets(pids: list[int]) -> list[str]:
    """The TCP listeners and UDP sockets these processes hold (TabPilot opens no network port)."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if table.startswith("udp") or cols[3] == "0A":  # 0A: LISTEN
                inodes.add(cols[9])
    held: list[str] = []
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = fd.readlink().name
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                held.append(f"{pid}: {target}")
    return held


class DevTools:
    """One page's DevTools connection: what a person's keyboard and mouse do there."""

    def __init__(self, target: dict[str, Any]) -> None:
        self.ws = websocket.create_connection(
            target["webSocketDebuggerUrl"], timeout=WAIT_S, suppress_origin=True
        )
        self.next_id = 0

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = json.loads(self.ws.recv())
            if answer.get("id") == self.next_id:
                assert "error" not in answer, answer
                return answer["result"]

    def fire(self, method: str, **params: Any) -> None:
        """Send without waiting for the answer: the page may be gone before it comes."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))

    def closed(self) -> bool:
        """Wait (bounded by the socket's timeout) for the page to go."""
        try:
            while self.ws.recv():
                pass
        except websocket.WebSocketConnectionClosedException:
            return True
        return True


class Person:
    """Answers the client's elicitation as a person would: finds the tab TabPilot opened in their
    browser, types the password there, then accepts; or declines without typing."""

    def __init__(
        self,
        driver: webdriver.Chrome,
        password: str | None,
        *,
        env: dict[str, str] | None = None,
        closes: bool = False,
        pilot_off: bool = False,
    ) -> None:
        self.driver = driver
        self.env = env or {}
        self.password = password
        self.closes = closes  # closes TabPilot's tab without typing, then says yes to the client
        self.pilot_off = pilot_off  # switches the pilot off in the popup instead, then says yes
        self.asked: list[types.ElicitRequestParams] = []
        self.page_text = ""
        self.checked: list[int] = []  # the TabPilot processes looked at while the page was open
        self.sockets: list[str] = []

    def _type_it(self, env: dict[str, str]) -> None:
        [target] = _ask_tabs(self.driver)
        self.checked = _tabpilot_pids(env)
        self.sockets = _network_sockets(self.checked)
        page = DevTools(target)
        shown = page.send("Runtime.evaluate", expression=READY, awaitPromise=True, returnByValue=True)
        self.page_text = shown["result"]["value"]
        assert self.password is not None
        page.send("Input.insertText", text=self.password)
        page.fire("Runtime.evaluate", expression="document.getElementById('send').click()")
        # The page has done its job: TabPilot closes it.
        assert page.closed()

    def _close_it(self) -> None:
        [target] = _ask_tabs(self.driver)
        page = DevTools(target)
        page.fire("Runtime.evaluate", expression="window.close()")
        assert page.closed()

    async def __call__(
        self, _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params)
        # Nothing for the client to collect: the request has no field at all.
        assert isinstance(params, types.ElicitRequestFormParams), params
        assert params.requested_schema.get("properties") == {}, params.requested_schema
        if self.pilot_off:
            await anyio.to_thread.run_sync(browser.set_pilot, self.driver, False)
            return types.ElicitResult(action="accept")
        if self.closes:
            await anyio.to_thread.run_sync(self._close_it)
            return types.ElicitResult(action="accept")
        if self.password is None:
            return types.ElicitResult(action="decline")
        await anyio.to_thread.run_sync(self._type_it, self.env)
        return types.ElicitResult(action="accept")


@asynccontextmanager
async def _client(env: dict[str, str], person: Person, mode: str, traffic: Path) -> AsyncIterator[Client]:
    """`tabpilot mcp` whose stdin, stdout and stderr are also written to `traffic`."""
    out = shlex.quote(str(traffic))
    command = f"tee -a {out} | {shlex.quote(TABPILOT)} mcp 2>>{out} | tee -a {out}"
    server = StdioServerParameters(command="/bin/sh", args=["-c", command], env=env)
    async with Client(server, read_timeout_seconds=60, elicitation_callback=person, mode=mode) as client:  # type: ignore[arg-type]
        yield client


async def _record(client: Client, site: Site, name: str) -> str:
    await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    recorded = await scrape(
        client,
        operation="workflow",
        name=name,
        record=True,
        steps=_steps(site),
        params={"user": site.user, "password": site.password},
    )
    await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    return str(recorded["workflow_id"])


def _files_holding(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # 2026-07-28 (input_required), 2025-11-25 (mid-call)
async def test_a_replay_asks_the_person_in_their_browser(
    client: Client, driver: webdriver.Chrome, env: dict[str, str], site: Site, mode: str, tmp_path: Path
) -> None:
    workflow_id = await _record(client, site, f"ledger_ask_{mode}")
    person = Person(driver, site.password, env=env)
    traffic = tmp_path / "mcp.log"
    async with _client(env, person, mode, traffic) as asking:
        out = await scrape(asking, operation="replay", workflow_id=workflow_id)
        assert [r["key"] for r in out["data"]] == KEYS
        [asked] = person.asked
        assert isinstance(asked, types.ElicitRequestFormParams)
        assert "password" in asked.message and "tab in your browser" in asked.message
        assert str(urlsplit(site.url).hostname) in asked.message  # which site asks
        assert "password" in person.page_text and workflow_id in person.page_text
        assert not _ask_tabs(driver)
        # While the page was open: no network port, neither in the host nor in the bridge.
        assert len(person.checked) >= 2 and person.sockets == [], (person.checked, person.sockets)
        await call(asking, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    assert site.password not in str(out)
    wire = traffic.read_text()
    assert "elicitation/create" in wire  # the recording saw the exchange
    assert site.password not in wire, "the password passed through the MCP client"
    for folder in ("TABPILOT_DATA_DIR", "TABPILOT_STATE_DIR"):
        assert not _files_holding(Path(env[folder]), site.password), folder


async def test_a_person_who_declines_or_closes_the_tab_and_a_client_that_cannot_ask_get_missing_params(
    client: Client, driver: webdriver.Chrome, env: dict[str, str], site: Site, tmp_path: Path
) -> None:
    workflow_id = await _record(client, site, "ledger_no_ask")
    person = Person(driver, None)
    closer = Person(driver, None, closes=True)
    async with (
        _client(env, person, "legacy", tmp_path / "mcp.log") as declining,
        _client(env, closer, "auto", tmp_path / "mcp2.log") as closing,
    ):
        for asking in (client, declining, closing):
            refused = await scrape_error(asking, operation="replay", workflow_id=workflow_id)
            assert refused["error"] == ErrorCode.INVALID_PARAMS and refused["missing_params"] == ["password"]
            assert refused["secret_params"] == ["password"] and "ask the person" in refused["message"]
            # The login form stands as it was: not even the username was typed.
            assert await js(asking, "document.querySelector('[name=username]').value") == ""
        # The plain client was not asked; the others once each (the closed page ends the wait).
        assert len(person.asked) == len(closer.asked) == 1
        assert not _ask_tabs(driver), "a declined ask closes its tab"


async def test_switching_the_pilot_off_closes_the_ask_and_keeps_nothing(
    client: Client, driver: webdriver.Chrome, env: dict[str, str], site: Site, tmp_path: Path
) -> None:
    workflow_id = await _record(client, site, "ledger_off")
    person = Person(driver, None, pilot_off=True)
    try:
        async with _client(env, person, "legacy", tmp_path / "mcp.log") as asking:
            refused = await scrape_error(asking, operation="replay", workflow_id=workflow_id)
            assert refused["error"] == ErrorCode.INVALID_PARAMS and refused["secret_params"] == ["password"]
            assert len(person.asked) == 1
            # Off means off: the page asking for the password is gone with the pilot.
            browser.wait_until(lambda: not _ask_tabs(driver) or None, what="the ask tab to close")
    finally:
        browser.set_pilot(driver, True)
