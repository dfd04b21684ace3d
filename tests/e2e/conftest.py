"""End-to-end fixtures: a page server, private TabPilot dirs, and real Chromium with the extension."""

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with pages.serve() as url:
        yield url


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    """TABPILOT_* dirs for the browser, its host and the bridge (short paths: sun_path is ~107 bytes)."""
    base = Path(tempfile.mkdtemp(prefix="tpe", dir="/tmp"))
    yield {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
        "TABPILOT_TEST_BASE": str(base),
    }
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def user_data_dir(env: dict[str, str]) -> Path:
    udd = Path(env["TABPILOT_TEST_BASE"]) / "profile"
    browser.prepare_profile(udd, env)
    return udd


@pytest.fixture(scope="module")
def chromium(user_data_dir: Path, env: dict[str, str]) -> Iterator[browser.Chromium]:
    """One browser for the module; tests that restart it leave a working one behind."""
    handle = browser.Chromium(user_data_dir, env)
    handle.start()
    try:
        yield handle
    finally:
        handle.quit()


@pytest.fixture
def driver(chromium: browser.Chromium) -> webdriver.Chrome:
    assert chromium.driver is not None
    return chromium.driver


@pytest.fixture
def pilot_on(driver: webdriver.Chrome) -> None:
    """AI Web Pilot switched on in the popup, as a person does before asking the agent to act."""
    browser.set_pilot(driver, True)


@pytest.fixture
async def client(pilot_on: None, env: dict[str, str]) -> AsyncIterator[Client]:
    """The pilot on and `tabpilot mcp` spawned by the real MCP client: the opening of most tests."""
    async with mcp_client(env) as connected:
        yield connected
