"""`extract`: rows from every element matching `selector`, through pagination or infinite scroll.

The page reads the fields (and redacts); the host converts values and merges the pages. Each page's
rows join the run's data as soon as they arrive, so a failure on page 4 still returns pages 1-3.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from msgspec import Meta

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Extract, Paginate, ScrollLoad, WaitFor
from .. import outschema
from ..context import Context, obj
from ..convert import Conversions
from ..model import PaginateOptions, ScrollOptions
from ..schema import FieldSpec, parse_schema
from .base import Selector, StepBase
from .extract_script import check_script, run_script
from .navigate import is_login_redirect

_specs_cache: dict[tuple[tuple[str, str], ...], list[FieldSpec]] = {}


def compiled(schema: dict[str, str]) -> list[FieldSpec]:
    """Parsed schema, cached: replays and pages reuse the same few schemas."""
    key = tuple(schema.items())
    found = _specs_cache.get(key)
    if found is None:
        if len(_specs_cache) > 256:
            _specs_cache.clear()
        found = _specs_cache[key] = parse_schema(schema)
    return found


def _check_redirect(before: str, landed: str) -> None:
    if before and is_login_redirect(before, landed):
        raise TabPilotError(
            ErrorCode.NAVIGATION_REDIRECT,
            f"the next page redirected to {landed}: probably a login page. Log in in that browser, then "
            "run the scrape again.",
            data={"redirect_url": landed},
        )


# Converting more rows than this takes long enough to hold up other clients: a thread does it.
_CONVERT_INLINE_ROWS = 2_000


async def _off_loop(
    convert: Callable[[list[Any]], list[dict[str, Any]]], rows: list[Any]
) -> list[dict[str, Any]]:
    """`convert(rows)`, on a thread when there are many rows (the host's loop serves every client)."""
    if len(rows) <= _CONVERT_INLINE_ROWS:
        return convert(rows)
    return await asyncio.to_thread(convert, rows)


class ExtractStep(StepBase, tag="extract"):
    """Read `schema` from each `selector` match; optionally wait, paginate or scroll-load first."""

    selector: Selector | None = None
    schema: dict[str, str] | None = None
    script: str | None = None  # an agent-written extractor in place of selector + schema
    css_selector: str | None = None  # the region the script (or the suggestion) looks at
    output_schema: dict[str, Any] | None = None  # JSON Schema 2020-12 the rows must match
    wait_for: str | None = None
    paginate: PaginateOptions | None = None
    scroll: ScrollOptions | None = None
    limit: Annotated[int, Meta(ge=0)] | None = None

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 10_000

    def __post_init__(self) -> None:
        if self.output_schema is not None:
            outschema.compile(self.output_schema)  # invalid_output_schema at plan time, before anything runs
        if self.script is not None:
            if self.selector is not None or self.schema is not None:
                raise ValueError("give script, or selector and schema, not both")
            check_script(self.script, self.paginate is not None or self.scroll is not None)
            return
        if self.selector is None or self.schema is None:
            raise ValueError('extract needs selector (the rows) and schema (field -> "css | op")')
        compiled(self.schema)  # a SchemaError (ValueError) becomes a validation error naming this step

    async def run(self, ctx: Context) -> Any:
        if self.script is not None:
            return await run_script(
                ctx,
                script=self.script,
                css_selector=self.css_selector,
                output_schema=self.output_schema,
                wait_for=self.wait_for,
                limit=self.limit,
                timeout_ms=self.timeout(),
            )
        assert self.selector is not None and self.schema is not None
        specs = compiled(self.schema)
        conv = Conversions(specs)
        plans = [s.plan() for s in specs]
        check = (
            None
            if self.output_schema is None
            else outschema.RowCheck(self.output_schema, len(ctx.state.data))
        )
        t = self.timeout()
        if self.wait_for:
            await ctx.call(WaitFor(id=0, selector=self.wait_for, timeout_ms=t), t)
        if self.scroll is not None:
            await self._scroll_load(ctx, self.selector, self.scroll, t)
        rows: list[dict[str, Any]] = []
        pages = 0
        try:
            while True:
                remaining = None if self.limit is None else self.limit - len(rows)
                answer = obj(
                    await ctx.call(
                        Extract(id=0, selector=self.selector, fields=plans, limit=remaining, timeout_ms=t), t
                    )
                )
                page = await _off_loop(conv.rows, answer.get("rows") or [])
                if check is not None:
                    page = await asyncio.to_thread(check.page, page)  # validation: off the loop
                warned: list[Any] = answer.get("warnings") or []
                for w in map(obj, warned):
                    ctx.state.warn({"field": str(w.get("field", "")), "message": str(w.get("message", ""))})
                rows += page
                ctx.state.data += page
                pages += 1
                ctx.state.pages += 1
                ctx.state.rows += len(page)
                ctx.progress()
                if not self._more(page, pages, rows):
                    break
                assert self.paginate is not None
                before = ctx.state.url or ""
                if self.paginate.delay_ms:
                    await asyncio.sleep(self.paginate.delay_ms / 1000)  # rate limit, not a wait
                moved = obj(
                    await ctx.call(
                        Paginate(
                            id=0,
                            next_selector=self.paginate.next_selector,
                            row_selector=self.selector,
                            timeout_ms=t,
                        ),
                        t,
                    )
                )
                if moved.get("outcome") == "end":
                    break
                landed = moved.get("url")
                if moved.get("reason") == "redirected" and isinstance(landed, str):
                    _check_redirect(before, landed)
        finally:
            for w in conv.warnings():
                ctx.state.warn(w)
        if check is not None:
            await asyncio.to_thread(check.verdict, rows)  # after every (coerced) row is in the run's data
            ctx.state.meta["output_schema"] = "valid"  # unless a later step's check fails (result.py)
        return rows

    def _more(self, page: list[dict[str, Any]], pages: int, rows: list[dict[str, Any]]) -> bool:
        if self.paginate is None or not page or pages >= self.paginate.max_pages:
            return False
        return self.limit is None or len(rows) < self.limit

    async def _scroll_load(self, ctx: Context, selector: str, scroll: ScrollOptions, t: int) -> None:
        for _ in range(scroll.max_scrolls):
            answer = obj(
                await ctx.call(
                    ScrollLoad(
                        id=0, row_selector=selector, until_selector=scroll.until_selector, timeout_ms=t
                    ),
                    t,
                )
            )
            before, after = int(answer.get("before", 0)), int(answer.get("after", 0))
            if answer.get("until_found") or after <= before:
                return
            if self.limit is not None and after >= self.limit:
                return
            if scroll.delay_ms:
                await asyncio.sleep(scroll.delay_ms / 1000)  # rate limit, not a wait
