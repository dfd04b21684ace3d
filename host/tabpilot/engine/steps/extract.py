"""`extract`: rows from every element matching `selector`, through pagination or infinite scroll.

The page reads the fields (and redacts); the host converts values and merges the pages. Each page's
rows join the run's data as soon as they arrive, so a failure on page 4 still returns pages 1-3.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from ...wire.errors import TabPilotError
from ...wire.messages import Extract, FieldPlan, WaitFor
from ...wire.replies import ExtractReply
from ...wire.scrape import ExtractOptions, Follow, PaginateOptions, ScrollOptions
from .. import outschema
from ..context import Context, obj
from ..convert import Conversions
from ..follow import check as check_follow
from ..follow import follow_rows
from ..paging import Walk
from ..schema import FieldSpec, parse_schema
from ..where import RowFilter
from .base import Selector, StepBase
from .extract_script import check_script, run_script
from .navigate import NavigateStep

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
    key_fields: list[str] | None = None  # what identifies a row (a grid's rows without an index, by these)
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
        keep = None if self.where is None else RowFilter(self.where, conv.names)
        check = None if self.output_schema is None else outschema.RowCheck(self.output_schema, ctx.state.rows)
        t = self.timeout()
        # Resuming a run that stopped in this step: where it was.
        point = ctx.state.resume_point(None if self.paginate is None else self.paginate.max_pages)
        fetch_from: tuple[str, str] | None = None
        if point is not None:
            ctx.state.meta["resumed"] = {"from_page": point.first, "pages_read_again": point.skip}
            if point.url is not None and point.tab and point.last and await _tab_shows(ctx, point.tab, t):
                # Fetched from the tab's page as before: the page keeps what it read ahead a while.
                fetch_from = (point.url, point.last)
            elif point.url is not None:
                await NavigateStep(url=point.url, timeout_ms=t).run(ctx)
        if self.wait_for:
            await ctx.call(WaitFor(id=0, selector=self.wait_for, timeout_ms=t), t)
        walk = Walk(
            ctx,
            selector=self.selector,
            fields=[s.plan() for s in specs],
            paginate=self.paginate,
            scroll=self.scroll,
            virtual=self.virtual,
            limit=self.limit,
            timeout_ms=t,
            filtered=keep is not None,
            key_fields=self.key_fields,
            first_page=1 if point is None else point.first,
            fetch_from=fetch_from,
        )
        rows: list[dict[str, Any]] = []
        # The rows are in the run's journal: the step holds them too only for whoever reads its output.
        hold = check is not None or bool(self.save_as)
        taken = 0
        # Resumed: pages journaled before are read again only to reach the next; their rows stay once.
        skip, before = (0, 0) if point is None else (point.skip, point.rows)
        try:
            async with contextlib.aclosing(walk.pages()) as pages:
                async for answer in pages:
                    if skip:
                        skip -= 1
                        continue
                    page = await self._page(ctx, conv, keep, check, answer, before + taken, walk.tab)
                    taken += len(page)
                    if hold:
                        rows += page
                    walk.kept(before + taken)
        finally:
            walk.close()
            for w in conv.warnings():
                ctx.state.warn(w)
        if check is not None:
            await asyncio.to_thread(check.verdict, rows)  # after every (coerced) row is in the run's data
            ctx.state.meta["output_schema"] = "valid"  # unless a later step's check fails (result.py)
        return rows

    async def _page(
        self,
        ctx: Context,
        conv: Conversions,
        keep: RowFilter | None,
        check: outschema.RowCheck | None,
        answer: ExtractReply,
        before: int,
        tab: str | None,
    ) -> list[dict[str, Any]]:
        """One page's rows converted, filtered, cut at the limit, followed and checked, joined to the
        run's data (`before`: rows this step kept from the pages before; `tab`: the tab's page, when this
        one was fetched from it)."""
        page = await _off_loop(conv.rows, answer.rows)
        read = len(page)
        if keep is not None:
            page = [r for r in page if keep(r)]
            dropped = ctx.state.meta.get("rows_filtered_out", 0) + read - len(page)
            ctx.state.meta["rows_filtered_out"] = dropped
        if self.limit is not None:
            page = page[: self.limit - before]  # a page fetched ahead was asked for more
        if self.follow is not None:
            await follow_rows(ctx, self.follow, page, self.timeout())
        if check is not None:
            page = await asyncio.to_thread(check.page, page)  # validation: off the loop
        for w in answer.warnings:
            ctx.state.warn({"field": w.field, "message": w.message})
        nxt = answer.next
        onward = nxt.url if nxt is not None and nxt.same_origin else None
        ctx.state.add_rows(page, answer.url, after=onward, tab=tab)
        ctx.progress()
        return page


async def _tab_shows(ctx: Context, url: str, timeout_ms: int) -> bool:
    """Whether the run's tab shows `url` (asked of the page: one command that reads no rows)."""
    probe = Extract(id=0, selector=":root", fields=[FieldPlan(name="_", take="text")], limit=0)
    try:
        shown = obj(await ctx.call(probe, timeout_ms)).get("url")
    except TabPilotError:
        return False
    return isinstance(shown, str) and shown.split("#")[0] == url.split("#")[0]
