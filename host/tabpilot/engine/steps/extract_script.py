"""The script branch of `extract`: the agent's own extractor, run once in the page.

One ExtractScript call returns the script's JSON, already scrubbed of known secrets in the page. An
array is the rows (`data`), whatever its items are. Any other value is one record: `data` is
`[value]` and `metadata.result` says "object" (or "value" for a string, number or boolean), so the
agent can tell a single record from a one-row list. The count of secrets replaced is added up in
`metadata.redacted`. With `output_schema` the rows are coerced and checked as an extract's are
(validation_failed names each violation's path, the rows still returned). A script reads one page:
the agent walks pages itself (navigate or click, then extract again), so pagination and
scroll-loading are refused before anything runs.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from ...wire.messages import ExtractScript, WaitFor
from ...wire.replies import ExtractScriptReply, decode_reply
from .. import outschema
from ..context import Context

# Far beyond any extractor; keeps one command well under the 1 MiB a host message may carry.
MAX_SCRIPT_CHARS = 200_000
MORE_PAGES = (
    "a script extractor reads one page: for more pages navigate or click to the next one and extract "
    "again (leave out options.paginate and options.scroll)"
)


def check_script(script: str, paginated: bool) -> None:
    """Refuse what a script extract cannot do (ValueError, shown as invalid_params)."""
    if not script.strip():
        raise ValueError("script is empty: give the body of a function of root that returns the rows")
    if len(script) > MAX_SCRIPT_CHARS:
        raise ValueError(f"script has {len(script):,} characters; the limit is {MAX_SCRIPT_CHARS:,}")
    if paginated:
        raise ValueError(MORE_PAGES)


def as_rows(value: Any) -> tuple[list[Any], str | None]:
    """The rows a script's value stands for, and how a non-array value was read (None for an array)."""
    if isinstance(value, list):
        return cast(list[Any], value), None
    return [value], "object" if isinstance(value, dict) else "value"


async def run_script(
    ctx: Context,
    *,
    script: str,
    css_selector: str | None,
    output_schema: dict[str, Any] | None,
    wait_for: str | None,
    limit: int | None,
    timeout_ms: int,
) -> list[Any]:
    """Run the extractor in the run's tab; its rows join the run's data and are returned."""
    if wait_for:
        await ctx.call(WaitFor(id=0, selector=wait_for, timeout_ms=timeout_ms), timeout_ms)
    answer = decode_reply(
        ExtractScriptReply,
        await ctx.call(
            ExtractScript(id=0, script=script, css_selector=css_selector, timeout_ms=timeout_ms), timeout_ms
        ),
    )
    rows, shape = as_rows(answer.result)
    if limit is not None:
        rows = rows[:limit]
    check = None if output_schema is None else outschema.RowCheck(output_schema, len(ctx.state.data))
    if check is not None:
        rows = await asyncio.to_thread(check.page, rows)  # off the loop: other clients go on
    meta = ctx.state.meta
    meta["redacted"] = int(meta.get("redacted", 0)) + (answer.redacted or 0)
    if shape is not None:
        meta["result"] = shape
    ctx.state.add_rows(rows, ctx.state.url)
    ctx.progress()
    if check is not None:
        await asyncio.to_thread(check.verdict, rows)  # after the (coerced) rows are in the run's data
        meta["output_schema"] = "valid"
    return rows
