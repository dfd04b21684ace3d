"""interact navigate / execute_js: the page as a whole: load a URL in the tab, run a script in it."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.errors import ErrorCode, TabPilotError
from ....wire.messages import CHROME_TO_HOST_MAX, ExecuteJs, Navigate
from ..base import Call, Encoded, encode
from ..snapshots import PageSnapshot, SnapshotMode, take

# The extension cannot send the host more than this in one result anyway.
MAX_RESULT_CAP = CHROME_TO_HOST_MAX


class NavigateResult(TypedDict):
    tab_id: int
    url: str
    title: str
    snapshot: NotRequired[PageSnapshot]


class ExecuteJsResult(TypedDict):
    success: bool
    result: NotRequired[Any]
    capped: NotRequired[bool]
    redacted: NotRequired[int]
    error: NotRequired[str]
    stack: NotRequired[str]


async def navigate(
    call: Call,
    url: Annotated[str, Field(description="URL to load.")],
    tab_id: int | None = None,
    timeout_ms: int = 30_000,
    snapshot: SnapshotMode = "none",
) -> NavigateResult:
    """load url and wait until it has loaded; returns the final url and title."""
    await call.progress(0, 1, f"loading {url}")
    value = await call.send(Navigate(id=0, url=url, tab_id=tab_id, timeout_ms=timeout_ms))
    await call.progress(1, 1, "loaded")
    out: NavigateResult = {"tab_id": value["tab_id"], "url": value["url"], "title": value.get("title", "")}
    if snapshot != "none":
        out["snapshot"] = await take(call, tab_id=out["tab_id"], mode=snapshot)
    return out


async def execute_js(
    call: Call,
    script: Annotated[
        str, Field(description="JavaScript run in the page: an expression, or a function body with `return`.")
    ],
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    max_result_bytes: Annotated[
        int, Field(ge=1, le=MAX_RESULT_CAP, description="Largest JSON result returned; default 1000000.")
    ] = 1_000_000,
) -> Encoded[ExecuteJsResult]:
    """run script in the page; returns {success, result} with a JSON-serializable result (arrays over
    10,000 items cut, with capped: true), or {success: false, error, stack} if it threw. Works under a
    strict CSP; a script past timeout_ms is stopped and the error's data says how the tab was recovered.
    It reads all the page's scripts can; secrets in the result are scrubbed (redacted: n): a guard
    against accidents, not against a script written to leak."""
    value = await call.send(ExecuteJs(id=0, script=script, tab_id=tab_id, timeout_ms=timeout_ms))
    out: ExecuteJsResult
    if value.get("success"):
        out = {"success": True, "result": value.get("result")}
        if value.get("capped"):
            out["capped"] = True
        if value.get("redacted"):
            out["redacted"] = int(value["redacted"])
    else:
        out = {"success": False, "error": str(value.get("error", ""))}
        if value.get("stack"):
            out["stack"] = str(value["stack"])
    text = encode(out)
    if len(text) > max_result_bytes:
        raise TabPilotError(
            ErrorCode.RESULT_TOO_LARGE,
            f"the result is {len(text):,} bytes of JSON, over max_result_bytes={max_result_bytes:,}. "
            "Return less (pick fields, slice arrays, aggregate in the script) or raise max_result_bytes "
            f"(up to {MAX_RESULT_CAP:,}).",
            data={"size": len(text), "limit": max_result_bytes},
        )
    return Encoded(out, text)
