"""The page digest: the page's repeated records as draft extractions, and a skeleton of the best region.

The page finds the structures and reads their first rows with extract's own code (page/suggest.js);
here each draft becomes a schema in the mini-language and its sample rows go through the same
Conversions an extract applies, so `extract {selector, schema}` gives back exactly the sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..wire.messages import Suggest
from ..wire.replies import Candidate, SuggestReply, decode_reply
from ..wire.replies.reading import ReadingGuess
from .context import Context
from .convert import Conversions
from .schema import FieldSpec, SchemaError, parse_field, parse_schema

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
    answer = decode_reply(SuggestReply, await ctx.call(command, timeout_ms))
    candidates = [c for c in map(candidate, answer.candidates) if c is not None]
    sk = answer.skeleton
    return Digest(
        candidates=candidates,
        skeleton={"selector": sk.selector, "html": sk.html, "bytes": sk.bytes, "truncated": sk.truncated},
        url=answer.url,
        elements=answer.elements,
        page_ms=float(answer.duration_ms),
    )


def spec_text(selector: str, take: str, attr: str | None, every: bool, convert: str | None) -> str:
    """The mini-language string for one draft field, as short as the grammar allows."""
    ops = [] if take == "text" and not attr else [f"{take}:{attr}" if attr else take]
    if every:
        ops.append("all")
    if convert:
        ops.append(convert)
    return " | ".join([selector or ":scope", *ops])


def candidate(raw: Candidate) -> dict[str, Any] | None:
    """One page candidate as `{kind, selector, schema, rows, sample, next_selector?, score}`; a field
    whose draft the grammar cannot say exactly is left out (with its sample column)."""
    if raw.selector is None or not raw.fields:
        return None
    schema: dict[str, str] = {}
    keep: list[int] = []
    for i, f in enumerate(raw.fields):
        if f.name in schema:
            continue
        attr = f.attr or None
        wanted = raw.converts.get(f.name)
        convert = wanted if wanted in ("number", "boolean") else None
        text = spec_text(f.selector, f.take, attr, f.all, convert)
        try:
            parsed = parse_field(f.name, text)
        except SchemaError:
            continue
        sel = "" if f.selector == ":scope" else f.selector
        if parsed != FieldSpec(f.name, sel, f.take, attr, f.all, convert):
            continue
        schema[f.name] = text
        keep.append(i)
    if not schema:
        return None
    rows = [[_at(r, i) for i in keep] for r in raw.sample]
    out: dict[str, Any] = {
        "kind": raw.kind,
        "selector": raw.selector,
        "schema": schema,
        "rows": raw.rows,
        # The very conversion extract applies to its rows: equal samples by construction.
        "sample": Conversions(parse_schema(schema)).rows(rows),
    }
    if raw.next_selector is not None:
        out["next_selector"] = raw.next_selector
    if raw.score is not None:
        out["score"] = raw.score
    if raw.paging is not None and (reading := _reading(raw.paging)) is not None:
        out["paging"] = reading
    return out


def _reading(guess: ReadingGuess) -> dict[str, Any] | None:
    """`{kind, why, options}`: the extract options that read the rest of the list (only what differs
    from their defaults, so the proposed call stays short)."""
    options: dict[str, Any] = {}
    if guess.paginate is not None:
        p = guess.paginate
        options["paginate"] = {"next_selector": p.next_selector, "max_pages": p.max_pages}
    elif guess.scroll is not None:
        scroll: dict[str, Any] = {"max_scrolls": guess.scroll.max_scrolls}
        if guess.scroll.until_selector:
            scroll["until_selector"] = guess.scroll.until_selector
        options["scroll"] = scroll
    if not options:
        return None
    out: dict[str, Any] = {"kind": guess.kind, "why": guess.why, "options": options}
    if (first := guess.first) is not None and (first.url or first.selector):
        out["first"] = {"url": first.url} if first.url else {"selector": first.selector}
    return out


def _at(row: list[Any], i: int) -> Any:
    return row[i] if i < len(row) else None
