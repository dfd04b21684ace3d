"""The page digest: the page's repeated records as draft extractions, and a skeleton of the best region.

The page finds the structures and reads their first rows with extract's own code (page/suggest.js);
here each draft becomes a schema in the mini-language and its sample rows go through the same
Conversions an extract applies, so `extract {selector, schema}` gives back exactly the sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ..wire.messages import Suggest
from .context import Context, obj
from .convert import Conversions
from .schema import FieldSpec, SchemaError, parse_field
from .steps.extract import compiled

DEFAULT_SKELETON_BYTES = 8_000
DEFAULT_CANDIDATES = 5
DEFAULT_TIMEOUT_MS = 10_000


@dataclass
class Digest:
    """What `suggest` found on one page, in the agent's shapes."""

    candidates: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    skeleton: dict[str, Any] = field(default_factory=dict[str, Any])
    url: str | None = None
    elements: int = 0
    page_ms: float = 0.0


async def page_digest(
    ctx: Context, query: str | None = None, css_selector: str | None = None
) -> dict[str, Any]:
    """The current page's candidate extractions (best first) and skeleton: `{candidates, skeleton, url}`."""
    found = await digest(ctx, query=query, css_selector=css_selector)
    return {"candidates": found.candidates, "skeleton": found.skeleton, "url": found.url}


async def digest(
    ctx: Context,
    *,
    query: str | None = None,
    css_selector: str | None = None,
    max_candidates: int = DEFAULT_CANDIDATES,
    skeleton_bytes: int = DEFAULT_SKELETON_BYTES,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> Digest:
    """Ask the page for its structures and shape them; page errors (invalid_selector,
    element_not_found for a css_selector that matches nothing) propagate as TabPilotError."""
    command = Suggest(
        id=0,
        query=query,
        css_selector=css_selector,
        max_candidates=max_candidates,
        skeleton_bytes=skeleton_bytes,
        timeout_ms=timeout_ms,
    )
    answer = obj(await ctx.call(command, timeout_ms))
    raw: list[Any] = answer.get("candidates") or []
    candidates = [c for c in map(candidate, raw) if c is not None]
    skeleton = obj(answer.get("skeleton"))
    url = answer.get("url")
    return Digest(
        candidates=candidates,
        skeleton={k: skeleton.get(k) for k in ("selector", "html", "bytes", "truncated")},
        url=url if isinstance(url, str) else None,
        elements=int(answer.get("elements") or 0),
        page_ms=float(answer.get("duration_ms") or 0.0),
    )


def spec_text(selector: str, take: str, attr: str | None, every: bool, convert: str | None) -> str:
    """The mini-language string for one draft field, as short as the grammar allows."""
    ops = [] if take == "text" and not attr else [f"{take}:{attr}" if attr else take]
    if every:
        ops.append("all")
    if convert:
        ops.append(convert)
    return " | ".join([selector or ":scope", *ops])


def candidate(value: Any) -> dict[str, Any] | None:
    """One page candidate as `{kind, selector, schema, rows, sample, next_selector?, score}`; a field
    whose draft the grammar cannot say exactly is left out (with its sample column)."""
    raw = obj(value)
    selector = raw.get("selector")
    fields: list[Any] = raw.get("fields") or []
    if not isinstance(selector, str) or not fields:
        return None
    converts = obj(raw.get("converts"))
    schema: dict[str, str] = {}
    keep: list[int] = []
    for i, f in enumerate(map(obj, fields)):
        name, sel, take = f.get("name"), f.get("selector"), f.get("take") or "text"
        attr, every = f.get("attr") or None, f.get("all") is True
        if not isinstance(name, str) or not isinstance(sel, str) or name in schema:
            continue
        convert = converts.get(name) if converts.get(name) in ("number", "boolean") else None
        text = spec_text(sel, str(take), attr, every, convert)
        try:
            parsed = parse_field(name, text)
        except SchemaError:
            continue
        if parsed != FieldSpec(name, "" if sel == ":scope" else sel, str(take), attr, every, convert):
            continue
        schema[name] = text
        keep.append(i)
    if not schema:
        return None
    sample_raw: list[Any] = raw.get("sample") or []
    rows = [[_at(cast(list[Any], r), i) for i in keep] for r in sample_raw if isinstance(r, list)]
    out: dict[str, Any] = {
        "kind": raw.get("kind"),
        "selector": selector,
        "schema": schema,
        "rows": int(raw.get("rows") or 0),
        # The very conversion extract applies to its rows: equal samples by construction.
        "sample": Conversions(compiled(schema)).rows(rows),
    }
    if isinstance(raw.get("next_selector"), str):
        out["next_selector"] = raw["next_selector"]
    if isinstance(raw.get("score"), int | float):
        out["score"] = raw["score"]
    return out


def _at(row: list[Any], i: int) -> Any:
    return row[i] if i < len(row) else None
