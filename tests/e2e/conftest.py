"""End-to-end fixtures: a page server, private TabPilot dirs, and real Chromium with the extension.

One Chromium serves the whole session (per xdist worker): each module that uses it gets it reset
(tests/support/shared.py), with the TabPilot dirs its host sees emptied, so the module's `env` is the
shared browser's. The reset leaves the new native host starting; `chromium`, `module_client` and every
test taking `env` wait until it listens. One `tabpilot mcp` serves the modules on the shared browser
(their environment is the same), as one bridge serves a person's agent across browser restarts.

A module that builds its own `env` (an override named `env` in the module) gets fresh dirs and a
browser of its own, as every module did before."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client
from selenium import webdriver

from tests.support import browser, pages
from tests.support.mcp_client import mcp_client
from tests.support.shared import SharedBrowser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def fixture_pages() -> Iterator[str]:
    """The fixture pages' server, one for the session (per xdist worker): stopping a server waits out
    its poll, half a second a module. The shared browser's reset forgets what pages stored under its
    origins (a server of the module's own gave them a new port, so a new origin)."""
    with pages.serve() as url:
        yield url


@pytest.fixture(scope="module")
def site(fixture_pages: str) -> str:
    return fixture_pages


@pytest.fixture(scope="session")
def shared_browser() -> Iterator[SharedBrowser]:
    base = Path(tempfile.mkdtemp(prefix="tps", dir="/tmp"))
    handle = SharedBrowser(base)
    try:
        yield handle
    finally:
        handle.quit()
        shutil.rmtree(base, ignore_errors=True)


def _on_shared_browser(request: pytest.FixtureRequest) -> bool:
    """Whether the module runs on the session's browser: one of its tests uses `chromium`, and the
    module does not build its own `env` (its browser's host needs that environment from the start)."""
    module = request.module
    if getattr(module, "env", None) is not None:
        return False
    return any(
        getattr(item, "module", None) is module and "chromium" in getattr(item, "fixturenames", ())
        for item in request.session.items
    )


@pytest.fixture(scope="module")
def env(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """TABPILOT_* dirs for the browser, its host and the bridge (short paths: sun_path is ~107 bytes)."""
    if _on_shared_browser(request):
        shared: SharedBrowser = request.getfixturevalue("shared_browser")
        url: str = request.getfixturevalue("fixture_pages")
        shared.reset(forget=[url, url.replace("127.0.0.1", "localhost")])
        yield dict(shared.env)
        return
    base = Path(tempfile.mkdtemp(prefix="tpe", dir="/tmp"))
    yield {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
        "TABPILOT_TEST_BASE": str(base),
    }
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium(request: pytest.FixtureRequest, env: dict[str, str]) -> Iterator[browser.Chromium]:
    """The browser for the module; tests that restart it leave a working one behind."""
    if _on_shared_browser(request):
        shared: SharedBrowser = request.getfixturevalue("shared_browser")
        assert env == shared.env, "a module on the shared browser uses its environment"
        shared.ready()
        yield shared.chromium
        return
    user_data_dir = Path(env["TABPILOT_TEST_BASE"]) / "profile"
    browser.prepare_profile(user_data_dir, env)
    handle = browser.Chromium(user_data_dir, env)
    handle.start()
    try:
        yield handle
    finally:
        handle.quit()


@pytest.fixture(autouse=True)
def _host_ready(request: pytest.FixtureRequest) -> None:
    """A test that takes `env` on the shared browser starts with its host listening, as after a
    browser's start (the fixtures that use the browser have waited already; this costs nothing then)."""
    if "env" in request.fixturenames and _on_shared_browser(request):
        shared: SharedBrowser = request.getfixturevalue("shared_browser")
        shared.ready()


@pytest.fixture
def driver(chromium: browser.Chromium) -> webdriver.Chrome:
    assert chromium.driver is not None
    return chromium.driver


@pytest.fixture
def pilot_on(driver: webdriver.Chrome) -> None:
    """AI Web Pilot switched on in the popup, as a person does before asking the agent to act (left
    as it is when the popup switched it on last and nothing since could have changed it)."""
    browser.ensure_pilot_on(driver)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    # Session-wide, so that one MCP client (its stdio session and tasks) can serve many modules' tests.
    return "asyncio"


@pytest.fixture(scope="session")
async def shared_client(shared_browser: SharedBrowser) -> AsyncIterator[Client]:
    """One `tabpilot mcp` for every module on the shared browser: its environment is the same for all
    of them, and a bridge outlives its browser's host restarting (the reset), as it does for a person."""
    async with mcp_client(dict(shared_browser.env)) as connected:
        yield connected


@pytest.fixture(scope="module")
async def own_client(env: dict[str, str]) -> AsyncIterator[Client]:
    """`tabpilot mcp` spawned for a module with a browser (and so an environment) of its own."""
    async with mcp_client(env) as connected:
        yield connected


def _opens_with_the_pilot_on(request: pytest.FixtureRequest) -> bool:
    """Whether the module's first test takes the pilot on and the module's client."""
    first = next(
        (item for item in request.session.items if getattr(item, "module", None) is request.module), None
    )
    names = getattr(first, "fixturenames", ())
    return "module_client" in names and "pilot_on" in names


@pytest.fixture(scope="module")
def module_client(request: pytest.FixtureRequest, env: dict[str, str]) -> Client:
    """The module's real MCP client on `tabpilot mcp`: the session's on the shared browser (once its
    new host listens), or one spawned for the module's own browser. On the shared browser, the pilot
    goes on in the popup first when the module's first test wants it: the new host starts meanwhile."""
    if not _on_shared_browser(request):
        return request.getfixturevalue("own_client")
    shared: SharedBrowser = request.getfixturevalue("shared_browser")
    if shared.chromium.driver is not None and _opens_with_the_pilot_on(request):
        browser.ensure_pilot_on(shared.chromium.driver)
    shared.ready()
    return request.getfixturevalue("shared_client")


@pytest.fixture
def client(module_client: Client, pilot_on: None) -> Client:
    """The pilot on and a real MCP client on `tabpilot mcp`: the opening of most tests. The client
    is the module's (a test that needs a new one spawns it with tests.support.mcp_client.mcp_client).
    The client comes first: it starts while the browser's host does."""
    return module_client


@pytest.fixture(scope="module")
def user_data_dir(chromium: browser.Chromium) -> Path:
    return chromium.user_data_dir
