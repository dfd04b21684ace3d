"""interact scrape (extract | workflow | replay), interact cancel, observe command_result.

The engine runs in the host: these actions pass the request on (`Scrape`), relay its progress to the
MCP client, and shape failures: a scrape that ended in error is an is_error result that still carries
its partial `data` and `metadata`; a refusal (`workflow_in_progress`) names the active workflow at the
top level, as the scrape spec shows. A finished result carries the answer and the evidence for it, not
the run's own account unless asked (lean.py).
"""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated, Any, NotRequired, cast

import anyio
import msgspec
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import CancelJob, JobResult, Progress, Scrape
from ...wire.scrape import REQUEST_TYPES, ScrapeRequest, parse_request
from . import ask
from .base import Call
from .fromwire import from_union
from .lean import Account, lean

DEFAULT_WAIT_MS = 20_000
MAX_WAIT_MS = 600_000
# On top of wait_ms: the host answers by then with the result or the progress so far.
_REPLY_MARGIN_S = 30.0
# How long a call the client cancelled waits for the host to stop its run.
_STOP_S = 5.0


class ScrapeResult(TypedDict):
    status: str
    correlation_id: NotRequired[str]  # not on a complete answer that holds every row (lean.py)
    extraction_id: NotRequired[str]  # the cached strategy: rerun it with extract {extraction_id}
    workflow_id: NotRequired[str]
    steps_completed: NotRequired[int]
    steps_total: NotRequired[int]
    progress: NotRequired[dict[str, Any]]  # pages, rows; pages_total, total_from, eta_s when known
    error: NotRequired[str]
    message: NotRequired[str]
    failed_step: NotRequired[int]
    redirect_url: NotRequired[str]
    data: NotRequired[list[Any]]
    result: NotRequired[dict[str, Any]]  # rows over options.max_bytes: uri (a resource), rows, schema
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


# The host or its browser went away while the scrape ran: its rows so far are in its journal.
_LOST = frozenset({ErrorCode.EXTENSION_DISCONNECTED, ErrorCode.EXTENSION_NOT_CONNECTED, ErrorCode.TIMEOUT})


async def _run(call: Call, command: Scrape | JobResult, wait_ms: int) -> ScrapeResult:
    started: list[str] = []
    if isinstance(command, Scrape):
        full = command.request.options.telemetry is True
    else:
        full = Account.asked(command.correlation_id)

    async def relay(p: Progress) -> None:
        if p.correlation_id and not started:
            started.append(p.correlation_id)
        await call.progress(p.progress, p.total, p.message or None)

    try:
        value = await call.send(command, timeout_s=wait_ms / 1000 + _REPLY_MARGIN_S, on_progress=relay)
    except anyio.get_cancelled_exc_class():
        # The client cancelled the call that started the run (notifications/cancelled): the person
        # stopped it, so the run stops too, keeping every row read (`resume` goes on from there). A
        # call that only follows a run (command_result) leaves it running.
        if started and isinstance(command, Scrape):
            # Already ended, or the host is gone: its journal keeps the rows either way.
            with anyio.CancelScope(shield=True), anyio.move_on_after(_STOP_S), suppress(TabPilotError):
                await call.send(CancelJob(id=0, correlation_id=started[0]))
        raise
    except TabPilotError as exc:
        if started and exc.code in _LOST:
            cid = started[0]
            hint = (
                f'observe {{what: "command_result", correlation_id: "{cid}"}} answers the rows read so far; '
                f'the same call with resume: "{cid}" goes on from the last page read'
            )
            raise Refused(exc.code, f"{exc.message}. {hint}", data={"correlation_id": cid}) from None
        details: Any = exc.data
        if isinstance(details, dict) and details:
            raise Refused(exc.code, exc.message, retryable=exc.retryable, data=details) from None
        raise
    if value.get("status") == "error":
        raise ScrapeFailed(value)
    if full and value.get("status") == "running":
        Account.remember(str(value.get("correlation_id")))
    return cast(ScrapeResult, value if full else lean(value))


WaitMs = Annotated[
    int, Field(ge=0, le=MAX_WAIT_MS, description="Wait this long for the result, else get a correlation_id.")
]


# Secrets asked of the person in one call at most this many times (each guard may need its own).
_ASKS = 3


async def _scrape(call: Call, request: dict[str, Any], wait_ms: int = DEFAULT_WAIT_MS) -> ScrapeResult:
    for asked in range(_ASKS + 1):
        typed = _unasked(parse_request(request))  # as `tabpilot scrape FILE` reads it
        try:
            return await _run(call, Scrape(id=0, request=typed, wait_ms=wait_ms, progress=True), wait_ms)
        except (Refused, ScrapeFailed) as exc:
            wanted, sites = _secrets_wanted(exc)
            if not wanted or asked == _ASKS:
                raise
            # The person types them on TabPilot's page in their browser: they never reach the agent.
            name = str(request.get("workflow_id") or request.get("name") or "")
            values = await ask.ask_person(call, wanted, name, sites)
            if values is None:
                raise
            request = {**request, "params": {**(request.get("params") or {}), **values}}
    raise AssertionError("unreachable")  # the loop returns or raises


def _unasked(req: ScrapeRequest) -> ScrapeRequest:
    """`req` not gathering the page telemetry when it does not ask for the run's account: a result over
    MCP leaves it out then (lean.py), and gathering it costs the run two reads of the tab's buffers at
    its end. A recording keeps the options as given (a replay from the command line shows it)."""
    if req.options.telemetry is not None or req.record:
        return req
    return msgspec.structs.replace(req, options=msgspec.structs.replace(req.options, telemetry=False))


def _secrets_wanted(exc: TabPilotError) -> tuple[list[str], list[str]]:
    """The secret params a refusal or a failed run says it lacks, and the sites it runs on."""
    data: dict[str, Any] = exc.to_dict()
    wanted: Any = data.get("secret_params")
    sites: Any = data.get("sites")
    names = [str(k) for k in cast(list[Any], wanted)] if isinstance(wanted, list) else []
    return names, [str(s) for s in cast(list[Any], sites)] if isinstance(sites, list) else []


# Its arguments are the scrape request's fields (wire/scrape.py), plus how long to wait for the result.
SCRAPE = from_union(
    REQUEST_TYPES,
    "structured data from the page: operation extract (selector + schema, options.paginate/scroll), "
    "workflow (steps; record + name stores it) or replay (workflow_id, params) -> {status, data, "
    "metadata} (its correlation_id and account: options.telemetry); running + correlation_id after "
    "wait_ms; partial + correlation_id: metadata.partial_because.hint names the option to pass; big: "
    "data has the first rows, resources/read of result.uri all. suggest (query?, css_selector?) returns "
    "call (send it as is), candidates, skeleton.",
    _scrape,
    ScrapeResult,
    name="scrape",
    extra={"wait_ms": WaitMs},
)


async def cancel(
    call: Call, correlation_id: Annotated[str, Field(description="The scrape to stop.")]
) -> ScrapeResult:
    """stop a running scrape; returns its result with the data it had (status cancelled)."""
    value = await call.send(CancelJob(id=0, correlation_id=correlation_id))
    if value.get("status") == "error":
        raise ScrapeFailed(value)
    return cast(ScrapeResult, value if Account.asked(correlation_id) else lean(value))


async def command_result(
    call: Call,
    correlation_id: Annotated[str, Field(description="From a scrape that answered status running.")],
    wait_ms: WaitMs = 0,
) -> ScrapeResult:
    """a scrape's final result, or its progress (steps_completed/steps_total, pages, rows) while it runs."""
    return await _run(
        call, JobResult(id=0, correlation_id=correlation_id, wait_ms=wait_ms, progress=True), wait_ms
    )
