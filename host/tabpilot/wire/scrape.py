"""The scrape request, one tagged union on `operation`: the one description of what `interact
{action: "scrape"}` and `tabpilot scrape FILE` take. Both read it with `parse_request`; the MCP input
schema is generated from these types (bridge/tools/fromwire.py), descriptions included; the Scrape
message carries it to the host, the engine plans and runs it.

Every struct forbids unknown fields (a misspelt option must fail, not be ignored).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from .depth import MAX_DEPTH, too_deep
from .echo import clip
from .errors import ErrorCode, TabPilotError
from .fields import explain, unknown_path
from .timer import MAX_TIMER_MS

MAX_STEPS = 50
DEFAULT_DELAY_MS = 0  # between the pages of a paginated extract: none unless asked, for politeness
DEFAULT_QUIET_MS = 500  # the end of an infinite feed
DEFAULT_MAX_BYTES = 1_000_000
MAX_BYTES = 64 * 1024 * 1024  # of rows one run holds in memory and answers with
# Rows over this many bytes of JSON are answered by reference (result.uri), not inline.
DEFAULT_INLINE_BYTES = 256 * 1024
MAX_CONCURRENCY = 8  # detail pages a follow reads at once
DEFAULT_CONCURRENCY = 4

# How many pages, scrolls or retries a run takes is the user's to say: each page's rows count against
# max_bytes, which is what bounds memory. A wait is bounded only by what a JavaScript timer can hold.
Ms = Annotated[int, Meta(ge=0, le=MAX_TIMER_MS)]


class Condition(Struct, forbid_unknown_fields=True):
    """`{"exists": selector}`: true when at least one element matches (`visible`: one is visible)."""

    exists: str | None = None
    visible: str | None = None

    def __post_init__(self) -> None:
        if (self.exists is None) == (self.visible is None):
            raise ValueError('a condition is {"exists": selector} or {"visible": selector}')


class PaginateOptions(Struct, forbid_unknown_fields=True):
    """Follow a next-page control: a link that navigates or a button that redraws in place."""

    next_selector: str
    max_pages: Annotated[int, Meta(ge=1)] = 10
    delay_ms: Ms = DEFAULT_DELAY_MS


class ScrollOptions(Struct, forbid_unknown_fields=True):
    """Infinite scroll: scroll to the end until no new rows arrive (or `until_selector` is visible).

    The end of a feed is the loader's own quiet: no new rows, no request of the tab in flight, for
    `quiet_ms` after the scroll (not the whole timeout)."""

    max_scrolls: Annotated[int, Meta(ge=1)] = 20
    until_selector: str | None = None
    delay_ms: Ms = 0
    quiet_ms: Annotated[int, Meta(ge=50, le=60_000)] = DEFAULT_QUIET_MS


class ExtractOptions(Struct, forbid_unknown_fields=True):
    """A workflow `extract` step's `options`: the extract operation's own shape (the run's pace and
    budget, `delay_ms`, `max_bytes`, `telemetry`, belong to the workflow's options)."""

    wait_for: str | None = None
    timeout_ms: Ms | None = None
    paginate: PaginateOptions | None = None
    scroll: ScrollOptions | None = None
    limit: Annotated[int, Meta(ge=0)] | None = None
    where: dict[str, Any] | None = None
    virtual: bool | None = None


class Options(Struct, forbid_unknown_fields=True):
    """Extraction options, and the pace of a workflow (`delay_ms` between steps, for politeness only:
    steps wait for their own conditions, so the default is no pause)."""

    wait_for: str | None = None
    timeout_ms: Ms | None = None
    paginate: PaginateOptions | None = None
    scroll: ScrollOptions | None = None
    limit: Annotated[int, Meta(ge=0)] | None = None
    # Rows kept: {field: value | {op: value}} on converted values (engine/where.py).
    where: dict[str, Any] | None = None
    # A virtualised grid (rows with aria-rowindex / row-index in a scrolling box of their own) is
    # scrolled through and read whole; null finds out, false never scrolls it.
    virtual: bool | None = None
    delay_ms: Ms = 0
    max_bytes: Annotated[int, Meta(ge=1_000, le=MAX_BYTES)] = DEFAULT_INLINE_BYTES
    # Summarise page errors and requests (default: all but 1-page extracts; over MCP only when asked, and
    # then with the run's whole account: bridge/tools/lean.py).
    telemetry: bool | None = None


class Follow(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """`{field, schema, selector?, wait_for?, concurrency?}` on an extract: open the URL in each row's
    `field`, read `schema` there (under `selector`, after `wait_for`), merge it into the row."""

    field: str
    schema: dict[str, str]
    selector: Annotated[str, Meta(min_length=1, max_length=4_000)] | None = None
    wait_for: Annotated[str, Meta(min_length=1, max_length=4_000)] | None = None
    concurrency: Annotated[int, Meta(ge=1, le=MAX_CONCURRENCY)] = DEFAULT_CONCURRENCY


class ErrorRecovery(Struct, forbid_unknown_fields=True):
    """What a failed step does: retry on timeout, then abort with the partial data or continue."""

    on_timeout: Literal["retry_step", "fail"] = "fail"
    max_retries: Annotated[int, Meta(ge=0)] = 2
    on_failure: Literal["abort_with_partial", "continue"] = "abort_with_partial"

    def retries(self) -> int:
        """How many times a timed-out step is tried again."""
        return self.max_retries if self.on_timeout == "retry_step" else 0


# What the agent reads beside a field in the MCP input schema; a field used by several operations says
# which ones.
OutputSchema = Annotated[
    dict[str, Any] | None,
    Meta(description="extract/replay: JSON Schema (2020-12) the rows must match; values are coerced."),
]
CssSelector = Annotated[str | None, Meta(description="suggest/extract script: the page region to look at.")]


class _Request(Struct, tag_field="operation", forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """What every scrape request may say: its tab, its options and pace, its params, a recording."""

    options: Annotated[
        Options,
        Meta(
            description="extract: paginate (Next links are fetched; the tab stays on page 1), scroll, "
            "limit, where {field: value | {op: value}}, virtual; workflow: delay_ms."
        ),
    ] = msgspec.field(default_factory=Options)
    error_recovery: ErrorRecovery = msgspec.field(default_factory=ErrorRecovery)
    params: dict[str, Any] | None = None
    name: str | None = None
    record: bool = False
    tab_id: int | None = None
    resume: str | None = None  # a stopped run's correlation_id: the same call goes on from its last page

    @property
    def operation(self) -> str:
        """The request's tag: extract | workflow | replay | suggest."""
        tag = type(self).__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class ExtractRequest(_Request, tag="extract"):
    """Rows from the page: selector + schema, an agent-written script, or a cached strategy."""

    selector: Annotated[
        str | None, Meta(description="extract: CSS selector of the rows (one match per record).")
    ] = None
    schema: Annotated[
        dict[str, str] | None,
        Meta(
            description='extract: field -> "css | op | op"; ops text html attr:NAME url number boolean all.'
        ),
    ] = None
    output_schema: OutputSchema = None
    script: Annotated[
        str | None,
        Meta(
            description="extract: your extractor, a function body run in the page with `root` (the "
            "css_selector match, else document); await allowed; return the rows (an array)."
        ),
    ] = None
    css_selector: CssSelector = None
    extraction_id: Annotated[
        str | None,
        Meta(
            description="extract: rerun the cached strategy an earlier extract returned (alone: nothing "
            "else needed; with selector + schema or script: repair it after strategy_stale)."
        ),
    ] = None
    use_cache: Annotated[bool, Meta(description="extract: rerun the cached strategy matching this URL.")] = (
        False
    )
    key_fields: Annotated[
        list[str] | None, Meta(description="extract: fields that identify a row when pages aggregate.")
    ] = None
    follow: Annotated[
        Follow | None,
        Meta(
            description="extract: read each row's page (the URL in its `field`; fetched, else in a "
            "background tab) and merge `schema`'s fields into the row."
        ),
    ] = None  # engine/follow.py


class WorkflowRequest(_Request, tag="workflow"):
    """Steps run in order (recorded under `name` with `record`)."""

    # Decoded into steps.Step by the plan (errors then name the step).
    steps: Annotated[
        list[Any] | None,
        Meta(
            description="workflow: [{type: navigate|wait|click|fill|type|press|select|check|hover|scroll|"
            "extract|execute_js|screenshot, ..., if/unless: {exists: css}, save_as, timeout_ms}]; strings "
            "may use {{name}}, {{params.x}}; fields, login bounces: observe what=help."
        ),
    ] = None
    output_schema: OutputSchema = None  # refused: it belongs on the extract steps


class ReplayRequest(_Request, tag="replay"):
    """A recorded workflow again, with overrides and params, locked to its domains unless allowed."""

    workflow_id: str | None = None
    override_params: Annotated[
        dict[str, Any] | None, Meta(description='replay: {"steps[0].url": "https://..."}.')
    ] = None
    output_schema: OutputSchema = None
    allow_domain_change: bool = False


class SuggestRequest(_Request, tag="suggest"):
    """The page's repeated records as draft extractions; `query` words rank them."""

    query: Annotated[str | None, Meta(description="suggest: words describing the records you want.")] = None
    css_selector: CssSelector = None


# One `interact {action: "scrape"}` call (and one file given to `tabpilot scrape`), tagged on `operation`.
ScrapeRequest = ExtractRequest | WorkflowRequest | ReplayRequest | SuggestRequest
REQUEST_TYPES: tuple[type[_Request], ...] = (ExtractRequest, WorkflowRequest, ReplayRequest, SuggestRequest)


def parse_request(value: Any) -> ScrapeRequest:
    """A ScrapeRequest from JSON-like input (or one already typed); any problem is invalid_params."""
    if isinstance(value, ExtractRequest | WorkflowRequest | ReplayRequest | SuggestRequest):
        return value
    if too_deep(value):  # before msgspec, which recurses
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS, f"scrape: the request nests deeper than {MAX_DEPTH} levels"
        )
    try:
        return msgspec.convert(value, ScrapeRequest)
    except msgspec.ValidationError as exc:
        path = unknown_path(exc)
        data = None if path is None else {"field": clip(path)}
        message = f"scrape: {explain(exc, ScrapeRequest, value)}"
        raise TabPilotError(ErrorCode.INVALID_PARAMS, message, data=data) from None
