"""interact scrape (extract | workflow | replay), interact cancel, observe command_result.

The engine runs in the host: these actions pass the request on (`Scrape`), relay its progress to the
MCP client, and shape failures: a scrape that ended in error is an is_error result that still carries
its partial `data` and `metadata`; a refusal (`workflow_in_progress`) names the active workflow at the
top level, as the scrape spec shows.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ...engine.plan import parse_request
from ...wire.errors import TabPilotError
from ...wire.messages import CancelJob, JobResult, Progress, Scrape
from .base import Call

DEFAULT_WAIT_MS = 20_000
MAX_WAIT_MS = 600_000
# On top of wait_ms: the host answers by then with the result or the progress so far.
_REPLY_MARGIN_S = 30.0


class Paginate(TypedDict):
    next_selector: str
    max_pages: NotRequired[int]
    delay_ms: NotRequired[int]


class ScrollLoad(TypedDict):
    max_scrolls: NotRequired[int]
    until_selector: NotRequired[str]
    delay_ms: NotRequired[int]
    quiet_ms: NotRequired[int]


class Options(TypedDict, total=False):
    wait_for: str
    timeout_ms: int
    paginate: Paginate
    scroll: ScrollLoad
    limit: int
    where: dict[str, Any]
    virtual: bool
    delay_ms: int
    max_bytes: int


class ErrorRecovery(TypedDict, total=False):
    on_timeout: Literal["retry_step", "fail"]
    max_retries: int
    on_failure: Literal["abort_with_partial", "continue"]


class ScrapeResult(TypedDict):
    status: str
    correlation_id: str
    extraction_id: NotRequired[str]  # the cached strategy: rerun it with extract {extraction_id}
    workflow_id: NotRequired[str]
    steps_completed: NotRequired[int]
    steps_total: NotRequired[int]
    progress: NotRequired[dict[str, int]]
    error: NotRequired[str]
    message: NotRequired[str]
    failed_step: NotRequired[int]
    redirect_url: NotRequired[str]
    data: NotRequired[list[Any]]
    outputs: NotRequired[dict[str, Any]]
    candidates: NotRequired[list[dict[str, Any]]]
    skeleton: NotRequired[dict[str, Any]]
    hint: NotRequired[str]
    metadata: NotRequired[dict[str, Any]]


class ScrapeFailed(TabPilotError):
    """A scrape that ended in error: the agent gets the whole result (with partial data) as the error."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(str(result.get("error", "internal_error")), str(result.get("message", "")))
        self.result = result

    def to_dict(self) -> dict[str, Any]:
        return self.result


class Refused(TabPilotError):
    """A refusal whose details sit at the top level (`active_workflow_id`, `missing_params`)."""

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in super().to_dict().items() if k != "data"}
        data: Any = self.data
        extra = cast(dict[str, Any], data) if isinstance(data, dict) else {}
        return out | extra


async def _run(call: Call, command: Scrape | JobResult, wait_ms: int) -> ScrapeResult:
    async def relay(p: Progress) -> None:
        await call.progress(p.progress, p.total, p.message or None)

    try:
        value = await call.send(command, timeout_s=wait_ms / 1000 + _REPLY_MARGIN_S, on_progress=relay)
    except TabPilotError as exc:
        details: Any = exc.data
        if isinstance(details, dict) and details:
            raise Refused(exc.code, exc.message, retryable=exc.retryable, data=details) from None
        raise
    if value.get("status") == "error":
        raise ScrapeFailed(value)
    return value


WaitMs = Annotated[
    int, Field(ge=0, le=MAX_WAIT_MS, description="Wait this long for the result, else get a correlation_id.")
]


async def scrape(
    call: Call,
    operation: Literal["extract", "workflow", "replay", "suggest"],
    selector: str | None = None,
    schema: Annotated[
        dict[str, str] | None,
        Field(
            description='extract: field -> "css | op | op"; ops text html attr:NAME url number boolean all.'
        ),
    ] = None,
    output_schema: Annotated[
        dict[str, Any] | None,
        Field(description="extract/replay: JSON Schema (2020-12) the rows must match; values are coerced."),
    ] = None,
    script: Annotated[
        str | None,
        Field(
            description="extract: your extractor, a function body run in the page with `root` (the "
            "css_selector match, else document); await allowed; return the rows (an array)."
        ),
    ] = None,
    css_selector: Annotated[
        str | None, Field(description="suggest/extract script: the page region to look at.")
    ] = None,
    query: Annotated[str | None, Field(description="suggest: words describing the records you want.")] = None,
    extraction_id: Annotated[
        str | None,
        Field(
            description="extract: rerun the cached strategy an earlier extract returned (alone: nothing else "
            "needed; with selector + schema or script: repair it after strategy_stale)."
        ),
    ] = None,
    use_cache: Annotated[
        bool | None, Field(description="extract: rerun the cached strategy matching this URL.")
    ] = None,
    key_fields: Annotated[
        list[str] | None, Field(description="extract: fields that identify a row when pages aggregate.")
    ] = None,
    follow: Annotated[
        dict[str, Any] | None,
        Field(
            description="extract: {field (a row's URL field), schema, selector?, wait_for?, concurrency? "
            "1-8}: read each row's page (fetched, else in a background tab), merge its fields into it."
        ),
    ] = None,
    options: Annotated[
        Options | None,
        Field(
            description="extract: paginate (Next links are fetched; the tab stays on page 1), scroll, "
            "limit, where {field: value | {op: value}}, virtual; "
            "workflow: delay_ms."
        ),
    ] = None,
    steps: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description="workflow: [{type: navigate|wait|click|fill|type|press|select|check|hover|scroll|"
            "extract|execute_js|screenshot, ..., if/unless: {exists: css}, save_as, timeout_ms}]; strings "
            "may use {{name}}, {{params.x}}; fields, login bounces: observe what=help."
        ),
    ] = None,
    name: str | None = None,
    record: bool | None = None,
    error_recovery: ErrorRecovery | None = None,
    workflow_id: str | None = None,
    override_params: Annotated[
        dict[str, Any] | None, Field(description='replay: {"steps[0].url": "https://..."}.')
    ] = None,
    params: dict[str, Any] | None = None,
    allow_domain_change: bool | None = None,
    wait_ms: WaitMs = DEFAULT_WAIT_MS,
    tab_id: int | None = None,
) -> ScrapeResult:
    """structured data from the page: operation extract (selector + schema, options.paginate/scroll),
    workflow (steps; record: true with a name stores it) or replay (workflow_id, override_params, params);
    returns {status, correlation_id, data, metadata}, or status running + correlation_id after wait_ms.
    operation suggest (query?, css_selector?) returns the page's repeated records as candidates
    [{selector, schema, rows, sample, next_selector}] to pass to extract, and a skeleton of the HTML."""
    # The parameters are the request's fields (plus wait_ms): the wire type checks them, as the CLI's.
    given = {k: v for k, v in locals().items() if v is not None and k not in ("call", "wait_ms")}
    request = parse_request(given)
    return await _run(call, Scrape(id=0, request=request, wait_ms=wait_ms, progress=True), wait_ms)


async def cancel(
    call: Call, correlation_id: Annotated[str, Field(description="The scrape to stop.")]
) -> ScrapeResult:
    """stop a running scrape; returns its result with the data it had (status cancelled)."""
    value = await call.send(CancelJob(id=0, correlation_id=correlation_id))
    if value.get("status") == "error":
        raise ScrapeFailed(value)
    return value


async def command_result(
    call: Call,
    correlation_id: Annotated[str, Field(description="From a scrape that answered status running.")],
    wait_ms: WaitMs = 0,
) -> ScrapeResult:
    """a scrape's final result, or its progress (steps_completed/steps_total, pages, rows) while it runs."""
    return await _run(
        call, JobResult(id=0, correlation_id=correlation_id, wait_ms=wait_ms, progress=True), wait_ms
    )
