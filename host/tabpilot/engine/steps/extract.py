"""`extract`: rows from every element matching `selector`, through pagination or infinite scroll.

The page reads the fields (and redacts); the host converts values and merges the pages. Each page's
rows join the run's data as soon as they arrive, so a failure on page 4 still returns pages 1-3.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Extract, ScrollLoad, WaitFor
from ...wire.replies import ExtractReply, ScrollLoadReply, decode_reply
from ...wire.scrape import ExtractOptions, Follow, PaginateOptions, ScrollOptions
from .. import outschema, stopped
from ..context import Context
from ..convert import Conversions
from ..follow import check as check_follow
from ..follow import follow_rows
from ..schema import FieldSpec, parse_schema
from ..where import RowFilter
from .base import Selector, StepBase
from .extract_script import check_script, run_script
from .paging import Pager

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


# Converting more rows than this takes long enough to hold up other clients: a thread does it.
_CONVERT_INLINE_ROWS = 2_000


async def _off_loop(
    convert: Callable[[list[Any]], list[dict[str, Any]]], rows: list[Any]
) -> list[dict[str, Any]]:
    """`convert(rows)`, on a thread when there are many rows (the host's loop serves every client)."""
    if len(rows) <= _CONVERT_INLINE_ROWS:
        return convert(rows)
    return await asyncio.to_thread(convert, rows)


# How many more timeouts a virtualised grid's read may take (each one answers, so none is a hang).
MAX_RESUMES = 20


def _resumable(answer: ExtractReply) -> bool:
    return answer.virtual is not None and answer.virtual.resume


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
    where: dict[str, Any] | None = None  # keep only these rows (engine/where.py)
    virtual: bool | None = None  # scroll a virtualised grid through (null: when the rows are one's)
    follow: Follow | None = None  # each row's link opened and its fields merged (engine/follow.py)
    # The same shape as the extract operation's options; moved to the fields above when the step is read.
    options: ExtractOptions | None = None

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 10_000

    def __post_init__(self) -> None:
        if self.options is not None:
            self._take_options(self.options)
        if self.output_schema is not None:
            outschema.compile(self.output_schema)  # invalid_output_schema at plan time, before anything runs
        if self.script is not None:
            if self.selector is not None or self.schema is not None:
                raise ValueError("give script, or selector and schema, not both")
            if self.where is not None or self.virtual:
                raise ValueError(
                    "where and virtual go with selector and schema; a script filters its rows itself"
                )
            check_script(self.script, self.paginate is not None or self.scroll is not None)
            if self.follow is not None:
                raise ValueError("follow goes with selector and schema (a script can read its own pages)")
            return
        if self.selector is None or self.schema is None:
            raise ValueError('extract needs selector (the rows) and schema (field -> "css | op")')
        specs = compiled(
            self.schema
        )  # a SchemaError (ValueError) becomes a validation error naming this step
        if self.where is not None:
            RowFilter(self.where, [f.name for f in specs])  # a bad condition is refused before anything runs
        if self.follow is not None:
            check_follow(self.follow, [f.name for f in specs])

    def _take_options(self, options: ExtractOptions) -> None:
        """`options.paginate` is `paginate` (one place in the step, so a recording keeps one form)."""
        for f in msgspec.structs.fields(options):
            value = getattr(options, f.name)
            if value is None:
                continue
            if getattr(self, f.name) is not None:
                raise ValueError(f"{f.name} is given twice (at the top of the step and in options): keep one")
            setattr(self, f.name, value)
        self.options = None

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
        keep = None if self.where is None else RowFilter(self.where, conv.names)
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
        redirected: str | None = None  # where the last next link was redirected to
        pager = None
        if self.paginate is not None:
            pager = Pager(
                ctx,
                selector=self.selector,
                fields=plans,
                options=self.paginate,
                timeout_ms=t,
                virtual=self.virtual,
            )
        answer: ExtractReply | None = None  # the next page's rows, when they came with the move to it
        try:
            while True:
                # Filtered rows are counted here: the page cannot know how many of its rows pass.
                remaining = None if self.limit is None or keep is not None else self.limit - len(rows)
                command = Extract(
                    id=0,
                    selector=self.selector,
                    fields=plans,
                    limit=remaining,
                    timeout_ms=t,
                    virtual=self.virtual,
                    # Where the next control leads: a link may be fetched instead of clicked (paging.py).
                    next_selector=None
                    if pager is None or self.scroll is not None
                    else pager.options.next_selector,
                )
                if answer is None:
                    answer = decode_reply(ExtractReply, await ctx.call(command, t))
                resumed = 0
                while _resumable(answer) and resumed < MAX_RESUMES:  # a long grid, read a timeout at a time
                    resumed += 1
                    ctx.progress()
                    again = await ctx.call(msgspec.structs.replace(command, resume=True), t)
                    answer = decode_reply(ExtractReply, again)
                if _resumable(answer):
                    raise TabPilotError(
                        ErrorCode.TIMEOUT,
                        f"the grid was still being read after {MAX_RESUMES + 1} timeouts of {t} ms; "
                        "pass options.limit, or a longer options.timeout_ms",
                        retryable=True,
                    )
                kind = stopped.not_html(answer.type) if pages else None
                if kind is not None:
                    where = answer.url or "the next page"
                    stopped.record(
                        ctx,
                        "not_html",
                        pages + 1,
                        f"{where} is {kind}, not an HTML page: next_selector probably also matches a "
                        "download or export link; make it match only the next-page control",
                    )
                    break
                page = await _off_loop(conv.rows, answer.rows)
                read = len(page)
                if keep is not None:
                    page = [r for r in page if keep(r)]
                    dropped = ctx.state.meta.get("rows_filtered_out", 0) + read - len(page)
                    ctx.state.meta["rows_filtered_out"] = dropped
                    if self.limit is not None:
                        page = page[: self.limit - len(rows)]
                elif self.limit is not None:
                    page = page[: self.limit - len(rows)]  # a page fetched ahead was asked for more
                if (v := answer.virtual) is not None:
                    # Rows read while the grid scrolled, over this many calls.
                    read_at = {"rows": v.rows, "scrolls": v.scrolls, "complete": v.complete}
                    ctx.state.meta["virtual"] = read_at | {"calls": resumed + 1}
                if self.follow is not None:
                    await follow_rows(ctx, self.follow, page, t)
                if check is not None:
                    page = await asyncio.to_thread(check.page, page)  # validation: off the loop
                for w in answer.warnings:
                    ctx.state.warn({"field": w.field, "message": w.message})
                rows += page
                ctx.state.data += page
                pages += 1
                ctx.state.pages += 1
                ctx.state.rows += len(page)
                ctx.progress()
                if pager is None or self._stop(ctx, read, pages, rows, redirected):
                    break
                remaining = None if self.limit is None or keep is not None else self.limit - len(rows)
                answer = await pager.advance(answer, pages, remaining)
                redirected = pager.redirected
                if answer is None:
                    break
        finally:
            if pager is not None:
                pager.close()
            for w in conv.warnings():
                ctx.state.warn(w)
        if check is not None:
            await asyncio.to_thread(check.verdict, rows)  # after every (coerced) row is in the run's data
            ctx.state.meta["output_schema"] = "valid"  # unless a later step's check fails (result.py)
        return rows

    def _stop(
        self,
        ctx: Context,
        read: int,
        pages: int,
        rows: list[dict[str, Any]],
        redirected: str | None,
    ) -> bool:
        """Whether the walk ends after this page; if so, why (in the run's metadata)."""
        assert self.paginate is not None
        if not read and redirected is not None:
            detail = f"the next page redirected to {redirected}, which has no rows matching the selector"
            stopped.record(ctx, "redirected", pages, detail)
        elif not read:
            stopped.record(ctx, "no_rows", pages, "this page has no rows matching the selector")
        elif pages >= self.paginate.max_pages:
            stopped.record(ctx, "max_pages", pages, f"paginate.max_pages ({self.paginate.max_pages}) reached")
        elif self.limit is not None and len(rows) >= self.limit:
            stopped.record(ctx, "limit", pages, f"options.limit ({self.limit}) rows collected")
        else:
            return False
        return True

    async def _scroll_load(self, ctx: Context, selector: str, scroll: ScrollOptions, t: int) -> None:
        for n in range(1, scroll.max_scrolls + 1):
            answer = decode_reply(
                ScrollLoadReply,
                await ctx.call(
                    ScrollLoad(
                        id=0,
                        row_selector=selector,
                        until_selector=scroll.until_selector,
                        quiet_ms=scroll.quiet_ms,
                        timeout_ms=t,
                    ),
                    t,
                ),
            )
            before, after = answer.before, answer.after
            if answer.until_found:
                marker = scroll.until_selector or "the feed's own end notice"
                stopped.record(ctx, "end_marker", n, f"{marker} is visible ({after} rows)")
                return
            if after <= before:
                detail = (
                    f"scrolled to the end and no new rows came ({after} rows; nothing loading for "
                    f"{scroll.quiet_ms} ms)"
                )
                stopped.record(ctx, "unchanged", n, detail)
                return
            if self.limit is not None and after >= self.limit:
                stopped.record(ctx, "limit", n, f"options.limit ({self.limit}) rows loaded")
                return
            if scroll.delay_ms:
                await asyncio.sleep(scroll.delay_ms / 1000)  # rate limit, not a wait
        stopped.record(
            ctx, "max_scrolls", scroll.max_scrolls, f"scroll.max_scrolls ({scroll.max_scrolls}) reached"
        )
