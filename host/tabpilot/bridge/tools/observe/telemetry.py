"""observe errors / network: what a tab recorded since a cursor (while AI Web Pilot is on)."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, cast

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import Telemetry
from ....wire.replies import TelemetryReply, decode_reply
from ..base import Call

Since = Annotated[
    int, Field(ge=0, description="errors/network: the cursor of the previous answer (0: from the start).")
]
Limit = Annotated[int, Field(ge=1, le=1000, description="errors/network: most items returned, default 100.")]


class ErrorItem(TypedDict):
    seq: int
    time: int
    kind: str
    message: str
    source: str
    stack: NotRequired[str]


class RequestItem(TypedDict):
    seq: int
    time: int
    method: str
    url: str
    type: str
    status: int
    duration_ms: int
    error: NotRequired[str]
    from_cache: NotRequired[bool]
    redirected_to: NotRequired[str]


class ErrorsResult(TypedDict):
    tab_id: int
    items: list[ErrorItem]
    cursor: int
    dropped: int
    more: bool
    recording: bool


class NetworkResult(TypedDict):
    tab_id: int
    items: list[RequestItem]
    cursor: int
    dropped: int
    more: bool
    recording: bool


def _common(value: TelemetryReply) -> dict[str, Any]:
    return {
        "tab_id": value.tab_id,
        "cursor": value.cursor,
        "dropped": value.dropped,
        "more": value.more,
        "recording": value.recording,
    }


async def errors(call: Call, since: Since = 0, limit: Limit = 100, tab_id: int | None = None) -> ErrorsResult:
    """console errors, uncaught exceptions and unhandled rejections of the tab's page after `since`, with
    source and time; pass back `cursor`. Recorded from page loads while the pilot is on (recording false
    means: reload to start); secrets redacted."""
    sent = await call.send(Telemetry(id=0, kind="errors", since=since, limit=limit, tab_id=tab_id))
    value = decode_reply(TelemetryReply, sent)
    return cast(ErrorsResult, {**_common(value), "items": value.items})


async def network(
    call: Call, since: Since = 0, limit: Limit = 100, tab_id: int | None = None
) -> NetworkResult:
    """the tab's requests after `since`: method, url, type, status, duration_ms (no headers, no bodies);
    pass back `cursor`."""
    sent = await call.send(Telemetry(id=0, kind="network", since=since, limit=limit, tab_id=tab_id))
    value = decode_reply(TelemetryReply, sent)
    return cast(NetworkResult, {**_common(value), "items": value.items})
