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
    "Pass a candidate's selector and schema to operation extract (next_selector goes to "
    "options.paginate.next_selector), or write a script from the skeleton when no draft fits."
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
        out["candidates"] = candidates
        out["skeleton"] = found.get("skeleton") or {}
        out["hint"] = HINT if candidates else HINT_NONE
    out["metadata"] = meta
    return out
