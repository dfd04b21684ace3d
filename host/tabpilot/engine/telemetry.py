"""What the page logged while a scrape ran: its errors and network requests, summarised for metadata.

The extension keeps per-tab buffers (answer `{items, cursor, more, ...}`, items with `time` in epoch
ms); the scrape reads them once at its end and keeps the items from its own time span. An extension
without the telemetry command simply gives no summary. A page's messages and the URLs it asked for
are scrubbed like any text that leaves the host (urlscrub.py): they may quote a secret.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..wire.errors import TabPilotError
from ..wire.messages import Telemetry
from ..wire.replies import TelemetryReply, decode_reply
from . import urlscrub
from .context import Context

_LIMIT = 1000
_TIMEOUT_S = 2.0
_EXAMPLES = 3


async def _since(ctx: Context, kind: str, started_ms: float) -> list[dict[str, Any]] | None:
    command = Telemetry(id=0, kind=kind, since=0, limit=_LIMIT, tab_id=ctx.tab_id)
    try:
        # Straight to the browser: no retries, a short bound; a summary is never worth a wait.
        async with asyncio.timeout(_TIMEOUT_S):
            # A malformed answer gives no summary either (it is never worth failing a scrape for).
            answer = decode_reply(TelemetryReply, await ctx.browser.call(command))
    except (TabPilotError, TimeoutError):
        return None
    return [i for i in answer.items if float(i.get("time") or 0) >= started_ms]


async def summary(ctx: Context, started_monotonic: float) -> dict[str, Any] | None:
    """`{errors, requests, failed_requests, first_errors}` for the run so far, or None if unavailable."""
    started_ms = (time.time() - (time.monotonic() - started_monotonic)) * 1000 - 1
    errors = await _since(ctx, "errors", started_ms)
    network = await _since(ctx, "network", started_ms)
    if errors is None and network is None:
        return None
    out: dict[str, Any] = {}
    if errors is not None:
        out["errors"] = len(errors)
        if errors:
            # Scrubbed before cut: a secret cut in half no longer looks like one.
            examples = errors[:_EXAMPLES]
            out["first_errors"] = [urlscrub.scrub_text(str(e.get("message", "")))[:200] for e in examples]
    if network is not None:
        failed = [n for n in network if int(n.get("status") or 0) == 0 or int(n.get("status") or 0) >= 400]
        out["requests"] = len(network)
        out["failed_requests"] = len(failed)
        if failed:
            out["first_failures"] = [
                f"{n.get('status') or n.get('error', 'failed')} "
                f"{urlscrub.scrub_url(str(n.get('url', '')))[:200]}"
                for n in failed[:_EXAMPLES]
            ]
    return out
