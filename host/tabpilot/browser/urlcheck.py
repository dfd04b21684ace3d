"""Make sure a freshly launched profile shows the requested URL (the first tab sometimes never loads)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec

from ..link.client import BrowserConnection
from ..wire import messages as m
from ..wire.errors import ErrorCode, TabPilotError

ATTEMPTS = 3
_NAV_TIMEOUT_MS = 15_000


class _Loaded(msgspec.Struct):
    url: str = ""


_RETRY_CODES = {ErrorCode.TIMEOUT, ErrorCode.NAVIGATION_FAILED, ErrorCode.TAB_CLOSED, ErrorCode.TAB_NOT_FOUND}


async def navigate(sock: Path, url: str, attempts: int = ATTEMPTS) -> tuple[str, int]:
    """Load `url` in the active tab through the extension, retrying; return the final URL and tries."""
    conn = await BrowserConnection.open(sock)
    last: TabPilotError | None = None
    try:
        for attempt in range(1, attempts + 1):
            try:
                raw = await conn.request(
                    m.Navigate(id=0, url=url, timeout_ms=_NAV_TIMEOUT_MS),
                    timeout_s=_NAV_TIMEOUT_MS / 1000 + 10,
                )
            except TabPilotError as exc:
                if exc.code not in _RETRY_CODES:
                    raise
                last = exc
                continue
            return msgspec.json.decode(raw, type=_Loaded).url or url, attempt
    finally:
        await conn.aclose()
    assert last is not None
    raise TabPilotError(
        ErrorCode.LAUNCH_FAILED,
        f"the browser started but did not load {url} in {attempts} tries: {last.message}",
    )


def ensure_url(sock: Path, url: str, pilot: bool) -> list[str]:
    """Load the URL through the extension when the pilot is on; otherwise say it was not checked."""
    if not pilot:
        return [
            f"{url} was passed on the command line; not checked (the extension acts only with the pilot on)"
        ]
    final, tries = asyncio.run(navigate(sock, url))
    return [f"loaded {final}" + (f" (after {tries} tries)" if tries > 1 else "")]
