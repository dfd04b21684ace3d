"""`suggest`: the page's repeated records as draft extractions, and a skeleton of the best region.

A one-step plan of its own (not a workflow step type): the agent asks it about the page in front of
it, then passes a candidate's selector and schema to `extract`, or writes a script from the skeleton.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta

from ..context import Context
from ..digest import DEFAULT_SKELETON_BYTES, digest
from .base import StepBase

HINT = (
    "Send `call` as it is (interact's arguments; add tab_id if you named one here): an extract of the "
    "best candidate's rows, through the pages or the scrolling its `paging` names (a workflow that "
    "opens the list's first page first, when the tab shows a later one). For another "
    "candidate, ask again with its selector as css_selector or with query words."
)
HINT_NONE = (
    "No repeated records found here: write a script from the skeleton, give css_selector for the "
    "region that holds them, or wait for the page to render them (options.wait_for) and ask again."
)
OUTPUT = "suggestion"  # where the step leaves its answer in the run state's outputs


class SuggestStep(StepBase, tag="suggest"):
    """Find the page's repeated records (optionally in `css_selector`, ranked by `query` words)."""

    query: Annotated[str, Meta(max_length=500)] | None = None
    css_selector: Annotated[str, Meta(min_length=1, max_length=4_000)] | None = None
    max_candidates: Annotated[int, Meta(ge=1, le=20)] = 5
    skeleton_bytes: Annotated[int, Meta(ge=500, le=64_000)] = DEFAULT_SKELETON_BYTES

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 10_000

    async def run(self, ctx: Context) -> Any:
        found = await digest(
            ctx,
            query=self.query,
            css_selector=self.css_selector,
            max_candidates=self.max_candidates,
            skeleton_bytes=self.skeleton_bytes,
            timeout_ms=self.timeout(),
        )
        value = {
            "candidates": found.candidates,
            "skeleton": found.skeleton,
            "url": found.url,
            "elements": found.elements,
            "page_ms": found.page_ms,
        }
        ctx.state.outputs[OUTPUT] = value
        return value


def response(state_outputs: dict[str, Any], status: str, duration_ms: int) -> dict[str, Any]:
    """The lean answer of a finished suggest: candidates, skeleton, a hint, metadata."""
    found: dict[str, Any] = state_outputs.get(OUTPUT) or {}
    candidates: list[Any] = found.get("candidates") or []
    meta: dict[str, Any] = {"url": found.get("url"), "duration_ms": duration_ms}
    if found:
        meta["elements"] = found.get("elements", 0)
        meta["page_ms"] = found.get("page_ms", 0.0)
    out: dict[str, Any] = {"status": status}
    if found:
        if candidates:
            out["call"] = proposed(candidates[0])
        out["candidates"] = [best(c) if i == 0 else summary(c) for i, c in enumerate(candidates)]
        out["skeleton"] = found.get("skeleton") or {}
        out["hint"] = HINT if candidates else HINT_NONE
    out["metadata"] = meta
    return out


def proposed(top: dict[str, Any]) -> dict[str, Any]:
    """The call that reads the best candidate whole: interact's arguments, ready to send. An extract; a
    workflow that first opens the list's first page when the tab shows a later one (read from there,
    the list would end complete without the pages before)."""
    call: dict[str, Any] = {
        "action": "scrape",
        "operation": "extract",
        "selector": top["selector"],
        "schema": top["schema"],
    }
    paging: dict[str, Any] | None = top.get("paging")
    if not paging:
        return call
    call["options"] = paging["options"]
    first: dict[str, str] | None = paging.get("first")
    if not first:
        return call
    opening = (
        {"type": "navigate", "url": first["url"]}
        if first.get("url")
        else {"type": "click", "selector": first["selector"]}
    )
    extract = {"type": "extract", "selector": top["selector"], "schema": top["schema"], **paging["options"]}
    return {"action": "scrape", "operation": "workflow", "steps": [opening, extract]}


def best(top: dict[str, Any]) -> dict[str, Any]:
    """The best candidate as the agent sees it: its sample, and how its list's rest is read."""
    out = {k: v for k, v in top.items() if k != "paging"}
    if paging := top.get("paging"):
        out["paging"] = {"kind": paging["kind"], "why": paging["why"]}
        if "first" in paging:
            out["paging"]["first"] = paging["first"]
    return out


def summary(other: dict[str, Any]) -> dict[str, Any]:
    """Another candidate, in a line: what it is, where, how many rows, its field names."""
    out = {k: other[k] for k in ("kind", "selector", "rows") if k in other}
    out["fields"] = list(other.get("schema") or {})
    if "score" in other:
        out["score"] = other["score"]
    return out
