"""Extension commands sent straight to the native host over its socket, as the bridge sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import TabPilotError


@asynccontextmanager
async def host_pool(env: dict[str, str]) -> AsyncIterator[BrowserPool]:
    """A pool on the test's runtime directory that waits for the browser's host to appear."""
    pool = BrowserPool(Path(env["TABPILOT_RUNTIME_DIR"]), connect_wait_s=10)
    try:
        yield pool
    finally:
        await pool.aclose()


async def call(pool: BrowserPool, command: m.Command) -> Any:
    """Run one command and return its decoded result."""
    return await pool.call(command)


async def call_error(pool: BrowserPool, command: m.Command) -> TabPilotError:
    """Run a command that must fail; return its error."""
    with pytest.raises(TabPilotError) as failed:
        await pool.call(command)
    return failed.value


def field(name: str, selector: str = "", take: str = "text", attr: str | None = None, *, all: bool = False):
    """One compiled schema field (what the engine's parser produces)."""
    return m.FieldPlan(name=name, selector=selector, take=take, attr=attr, all=all)
