"""The scrape request, one tagged union on `operation`: the bridge and the CLI build it with
msgspec.convert, the Scrape message carries it to the host, the engine plans and runs it.

Every struct forbids unknown fields (a misspelt option must fail, not be ignored).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

MAX_STEPS = 50
MAX_PAGES = 500
MAX_SCROLLS = 500
DEFAULT_DELAY_MS = 0  # between the pages of a paginated extract: none unless asked, for politeness
DEFAULT_QUIET_MS = 500  # the end of an infinite feed
DEFAULT_MAX_BYTES = 1_000_000
MAX_CONCURRENCY = 8  # detail pages a follow reads at once
DEFAULT_CONCURRENCY = 4

Ms = Annotated[int, Meta(ge=0, le=600_000)]


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
    max_pages: Annotated[int, Meta(ge=1, le=MAX_PAGES)] = 10
    delay_ms: Ms = DEFAULT_DELAY_MS


class ScrollOptions(Struct, forbid_unknown_fields=True):
    """Infinite scroll: scroll to the end until no new rows arrive (or `until_selector` is visible).

    The end of a feed is the loader's own quiet: no new rows, no request of the tab in flight, for
    `quiet_ms` after the scroll (not the whole timeout)."""

    max_scrolls: Annotated[int, Meta(ge=1, le=MAX_SCROLLS)] = 20
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
    max_bytes: Annotated[int, Meta(ge=1_000, le=64 * 1024 * 1024)] = DEFAULT_MAX_BYTES
    telemetry: bool | None = None  # summarise page errors and requests (default: all but 1-page extracts)


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
    max_retries: Annotated[int, Meta(ge=0, le=10)] = 2
    on_failure: Literal["abort_with_partial", "continue"] = "abort_with_partial"

    def retries(self) -> int:
        """How many times a timed-out step is tried again."""
        return self.max_retries if self.on_timeout == "retry_step" else 0


class _Request(Struct, tag_field="operation", forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """What every scrape request may say: its tab, its options and pace, its params, a recording."""

    options: Options = msgspec.field(default_factory=Options)
    error_recovery: ErrorRecovery = msgspec.field(default_factory=ErrorRecovery)
    params: dict[str, Any] | None = None
    name: str | None = None
    record: bool = False
    tab_id: int | None = None

    @property
    def operation(self) -> str:
        """The request's tag: extract | workflow | replay | suggest."""
        tag = type(self).__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class ExtractRequest(_Request, tag="extract"):
    """Rows from the page: selector + schema, an agent-written script, or a cached strategy."""

    selector: str | None = None
    schema: dict[str, str] | None = None
    # A JSON Schema the rows must match; an agent-written extractor in place of selector + schema;
    # the page region; a cached strategy to rerun (or the one matching the URL); the fields that
    # identify a row when pages are aggregated.
    output_schema: dict[str, Any] | None = None
    script: str | None = None
    css_selector: str | None = None
    extraction_id: str | None = None
    use_cache: bool = False
    key_fields: list[str] | None = None
    follow: Follow | None = None  # each row's link read and merged (engine/follow.py)


class WorkflowRequest(_Request, tag="workflow"):
    """Steps run in order (recorded under `name` with `record`)."""

    steps: list[Any] | None = None  # decoded into steps.Step by the plan (errors then name the step)
    output_schema: dict[str, Any] | None = None  # refused: it belongs on the extract steps


class ReplayRequest(_Request, tag="replay"):
    """A recorded workflow again, with overrides and params, locked to its domains unless allowed."""

    workflow_id: str | None = None
    override_params: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    allow_domain_change: bool = False


class SuggestRequest(_Request, tag="suggest"):
    """The page's repeated records as draft extractions; `query` words rank them."""

    query: str | None = None
    css_selector: str | None = None


# One `interact {action: "scrape"}` call (and one file given to `tabpilot scrape`), tagged on `operation`.
ScrapeRequest = ExtractRequest | WorkflowRequest | ReplayRequest | SuggestRequest
