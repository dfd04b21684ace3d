"""`follow`: open each row's link (a detail page) and merge the fields read there into the row.

Each detail page is fetched and parsed in the list's page, or rendered in a background tab that is
never activated (engine/detail.py says which, and when), at most `concurrency` at once and fewer when
the site answers slower with more in flight (engine/inflight.py); redaction and the site scope apply
either way. A server error or a dropped connection is tried once more (`metadata.follow.retried`). A
page that fails leaves its row with the list's fields and an entry in `metadata.follow_errors`; a
detail page that lands on a login page stops following (the session is
gone: every later one would too) and says so in `metadata.follow.stopped`.

`where` and `limit` apply to the list's fields, before following: only the rows kept are opened.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..wire.echo import nearest, show
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.scrape import Follow
from .context import Context, obj
from .convert import Conversions
from .detail import DetailReader, Read
from .inflight import Inflight
from .schema import parse_schema
from .urls import is_login_redirect

# A detail page that fails in one of these ways costs its row only; anything else (the extension gone,
# the pilot switched off, an invalid root selector that every page would fail on) ends the extract.
PER_ROW = frozenset(
    {
        ErrorCode.TIMEOUT,
        ErrorCode.NAVIGATION_FAILED,
        ErrorCode.NAVIGATION_BLOCKED,
        ErrorCode.ELEMENT_NOT_FOUND,
        ErrorCode.TAB_CLOSED,
        ErrorCode.SITE_NOT_ALLOWED,
        ErrorCode.SCRIPT_ERROR,
        ErrorCode.INVALID_PARAMS,
        ErrorCode.HTTP_ERROR,
        ErrorCode.NOT_HTML,
    }
)
MAX_ERRORS = 100  # entries kept in metadata.follow_errors (the count is follow.failed)
PACE_START = 2  # detail pages in flight at first, before the site's answers say more


def check(spec: Follow, row_fields: list[str]) -> None:
    """Plan-time checks of a follow against the row schema; ValueError says what to fix."""
    if spec.field not in row_fields:
        guess = nearest(spec.field, row_fields)
        hint = f'; did you mean "{guess}"?' if guess else ""
        raise ValueError(
            f"follow.field {show(spec.field)} is not a field of the schema{hint} (fields: "
            f'{", ".join(row_fields)}); it names the field holding each row\'s link, e.g. "a | url"'
        )
    if not spec.schema:
        raise ValueError('follow.schema needs at least one field (name -> "css | op")')
    names = [f.name for f in parse_schema(spec.schema)]  # a SchemaError names the field
    clash = [n for n in names if n in row_fields]
    if clash:
        raise ValueError(
            f"follow.schema field(s) {', '.join(map(show, clash))} are also row fields: a detail "
            "field is merged into its row, so give it another name"
        )


def _url(value: Any, base: str | None) -> str | None:
    """The absolute http(s) URL a row's field holds, or None."""
    if not isinstance(value, str) or not value.strip():
        return None
    url = urljoin(base or "", value.strip())
    return url if urlsplit(url).scheme in ("http", "https") else None


def _site_time(read: Read | None, trip: float) -> float:
    """How long a page took the site: its request's own time where the page measured it (shared places),
    else the whole trip through the browser."""
    return read.site_s if read is not None and read.site_s is not None else trip


def _info(ctx: Context) -> dict[str, Any]:
    """The run's `metadata.follow` (one for every page of the walk)."""
    found = ctx.state.meta.get("follow")
    if isinstance(found, dict):
        return obj(found)
    info: dict[str, Any] = {"mode": None, "done": 0, "total": 0}  # mode: fetch | tab, once decided
    ctx.state.meta["follow"] = info
    return info


def _fail(ctx: Context, row: int, url: str | None, code: str, message: str) -> None:
    info = _info(ctx)
    info["failed"] = info.get("failed", 0) + 1
    errors: list[dict[str, Any]] = ctx.state.meta.setdefault("follow_errors", [])
    if len(errors) < MAX_ERRORS:
        errors.append({"row": row, "url": url, "error": code, "message": message})


async def follow_rows(ctx: Context, spec: Follow, rows: list[dict[str, Any]], timeout_ms: int) -> None:
    """Merge each row's detail page into it, in place. Cancelled, the rows (with what was merged so far)
    join the run's data first: a cancel keeps what was read."""
    try:
        await _follow(ctx, spec, rows, timeout_ms)
    except asyncio.CancelledError:
        ctx.state.add_rows(rows, None, page=False)
        raise


async def _follow(ctx: Context, spec: Follow, rows: list[dict[str, Any]], timeout_ms: int) -> None:
    info = _info(ctx)
    info["total"] += len(rows)
    if not rows or info.get("stopped"):
        return
    specs = parse_schema(spec.schema)
    conv = Conversions(specs)
    plans = [s.plan() for s in specs]
    reader = DetailReader(ctx, spec, plans, timeout_ms, info)
    try:
        await _each(ctx, spec, rows, reader, conv)
    finally:
        # The background tabs go whatever happened; a second cancel does not stop their release.
        await asyncio.shield(reader.close())
        for w in conv.warnings():
            ctx.state.warn(w)


async def _each(
    ctx: Context, spec: Follow, rows: list[dict[str, Any]], reader: DetailReader, conv: Conversions
) -> None:
    info = reader.info
    base = ctx.state.rows  # row numbers in follow_errors are indexes into `data`
    # While the first page is checked, the next ones are fetched, each giving its place back once
    # fetched (detail.py); their answers measure the site, from two in flight up. Once tabs are chosen,
    # the pace starts again from two: a rendered page is another load on the site than a fetched one.
    gate = Inflight(spec.concurrency, start=PACE_START)
    # Fetched pages share the pace's places at the site in the page (detail_batch.py), and twice as
    # many are asked for: a command's worth waits there while another's answer travels back and the
    # next command out, so the site is never left idle for them. A rendered page holds its place here.
    # Where the page holds no places, half of them to a command: two commands are under way.
    gate.depth = lambda: 2 if info.get("mode") != "tab" and reader.batches.sharing() else 1
    reader.batches.places = lambda: gate.limit
    reader.batches.outstanding = lambda: gate.active
    reader.batches.most = lambda: gate.limit if gate.depth() > 1 else max(1, -(-gate.limit // 2))
    loop = asyncio.get_running_loop()
    paced: list[bool] = []  # the mode's choice was seen

    def check_room() -> int:
        # The check reads its page twice on one place, and holds it while a tab opens and draws the
        # page: the browser's time, hardly the site's. So until the site slows down, that place does
        # not count against the pace (the pages fetched meanwhile start from PACE_START beside it, not
        # one at a time); once it has, room is left for its second read too: one more request the site
        # holds. The ceiling counts it always.
        if not reader.checking_now():
            return 0
        return 1 if gate.slowed else -1

    async def ahead(url: str) -> Read | TabPilotError | None:
        """`url` fetched while the check runs, then the check's end awaited holding no place."""
        started_round = await gate.acquire(room=check_room)
        retried, started = info.get("retried", 0), loop.time()
        got: Read | TabPilotError | None = None
        try:
            got = await reader.fetch_ahead(url)
        finally:
            took = _site_time(got, loop.time() - started) if isinstance(got, Read) else None
            await gate.release(started_round, took, failed=info.get("retried", 0) > retried)
        await reader.settled()  # not fetched (enough were, or another origin): wait as well
        return got

    async def one(i: int, row: dict[str, Any]) -> None:
        url = _url(row.get(spec.field), ctx.state.url)
        if url is None:
            value = row.get(spec.field)
            why = f"{spec.field} holds {show(str(value)) if value is not None else 'nothing'}, not a link"
            _fail(ctx, base + i, None, str(ErrorCode.ELEMENT_NOT_FOUND), why)
            return
        early = await ahead(url) if reader.checking_now() else None
        started_round = await gate.acquire()
        # Only a read of a decided mode with a request of its own measures the site: the check reads
        # twice, and a page fetched ahead was measured when it was fetched.
        decided, retried, started = info.get("mode") is not None, info.get("retried", 0), loop.time()
        took: float | None = None
        try:
            if info.get("stopped"):
                return
            try:
                answer = await reader.read(url, early)
            except TabPilotError as exc:
                if exc.code not in PER_ROW:
                    raise
                _fail(ctx, base + i, url, str(exc.code), exc.message)
                return
            took = _site_time(answer, loop.time() - started) if decided and early is None else None
            if not paced and info.get("mode") is not None:
                paced.append(True)
                if info["mode"] == "tab":
                    gate.restart(PACE_START)
        finally:
            await gate.release(started_round, took, failed=info.get("retried", 0) > retried)
        if answer is None:
            return  # following stopped while this page waited
        landed = answer.landed
        if answer.redirected and landed is not None and is_login_redirect(url, landed):
            if not info.get("stopped"):
                info["stopped"] = {"reason": "redirected", "url": landed, "row": base + i}
                ctx.state.warn(
                    {
                        "message": f"following stopped: {url} redirected to {landed}, probably a login "
                        "page; log in in that browser, then run the scrape again"
                    }
                )
            return
        if not answer.rows:
            where = spec.selector or ":root"
            _fail(ctx, base + i, url, str(ErrorCode.ELEMENT_NOT_FOUND), f"no {show(where)} on the page")
            return
        row.update(conv.rows(answer.rows[:1])[0])
        for w in answer.warnings:
            ctx.state.warn({"field": w.field, "message": w.message})
        info["done"] += 1
        ctx.progress()

    try:
        # The first detail page decides how all are read; the next ones are fetched meanwhile (detail.py).
        async with asyncio.TaskGroup() as group:
            for i, row in enumerate(rows):
                group.create_task(one(i, row))
    except BaseExceptionGroup as grouped:
        raise grouped.exceptions[0] from None  # the first fatal failure, as a plain error
