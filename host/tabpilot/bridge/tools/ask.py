"""Asking the person, not the agent, for a secret a run needs (a replay's password, never stored).

The person types it in their own browser, on TabPilot's extension page (extension/ask.html) that the
`ask_secret` command opens in a new tab of the browser the run targets: the value goes page → worker →
host → this bridge → the rerun's params, never through the MCP client or the agent. The client only
tells the person where to look: a form-mode elicitation with no field at all (MCP forbids form mode
for passwords), Accept once typed, Decline to stop. A client without elicitation is not asked: the
refusal then tells the agent to ask the person.

On the 2025-11-25 protocol the client is asked in the middle of the tool call. On 2026-07-28 a call
cannot ask: it answers `input_required` with the elicitation and the page's ask_id as its state, and
the client calls again with the person's answer.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, cast

from mcp.server.mcpserver import Context
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.version import is_version_at_least

from ...wire.errors import TabPilotError
from ...wire.messages import AskSecret
from .base import Call

log = logging.getLogger("tabpilot.bridge")

# How long the person has to type the secret once they said they would.
WAIT_MS = 300_000
_KEY = "tabpilot_secret"
_INPUT_REQUIRED_VERSION = "2026-07-28"
_NO_FIELDS: dict[str, Any] = {"type": "object", "properties": {}}


class NeedInput(Exception):  # not an error: the tool call's answer is a question
    """The call's answer is a request for the person's input (the 2026-07-28 protocol's input_required)."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


def can_ask(ctx: Context[Any, Any] | None) -> bool:
    """Whether the client takes form-mode elicitation (an empty `elicitation` capability means form)."""
    if ctx is None:
        return False
    try:
        caps = ctx.client_capabilities
    except (AttributeError, ValueError):  # outside a request
        return False
    elicitation = caps.elicitation if caps is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def message(names: list[str], workflow: str, sites: list[str]) -> str:
    """What the client shows the person: where to type, never a field to type into."""
    what = " and ".join(names)
    where = f" for {', '.join(sites)}" if sites else ""
    run = f" (to run {workflow})" if workflow else ""
    return (
        f"TabPilot opened a tab in your browser asking for {what}{where}{run}; type it there, not here. "
        "Accept once you have sent it; Decline to stop the run."
    )


async def ask_person(call: Call, names: list[str], workflow: str, sites: list[str]) -> dict[str, str] | None:
    """The values of `names` as the person typed them on TabPilot's page, or None when the client
    cannot ask, or the person declined or sent nothing in time. Raises NeedInput on the 2026-07-28
    protocol's first round."""
    ctx = call.ctx
    if ctx is None or not can_ask(ctx):
        return None
    text = message(names, workflow, sites)
    if is_version_at_least(ctx.protocol_version or "", _INPUT_REQUIRED_VERSION):
        return await _by_retry(call, ctx, names, workflow, sites, text)
    ask_id = await _open(call, names, workflow, sites)
    try:
        answer = await ctx.session.elicit_form(text, _NO_FIELDS, related_request_id=ctx.request_id)
        if answer.action != "accept":
            log.info("the person did not give the secret (%s)", answer.action)
            return None
        return await _collect(call, ask_id)
    finally:
        await _close(call, ask_id)


async def _by_retry(
    call: Call, ctx: Context[Any, Any], names: list[str], workflow: str, sites: list[str], text: str
) -> dict[str, str] | None:
    ask_id = ctx.request_state
    answer: Any = (ctx.input_responses or {}).get(_KEY)
    if not ask_id or answer is None:
        ask_id = await _open(call, names, workflow, sites)
        params = ElicitRequestFormParams(mode="form", message=text, requested_schema=_NO_FIELDS)
        request = ElicitRequest(method="elicitation/create", params=params)
        raise NeedInput(
            InputRequiredResult(
                input_requests={_KEY: request}, request_state=ask_id, result_type="input_required"
            )
        )
    try:
        if getattr(answer, "action", None) != "accept":
            log.info("the person did not give the secret (%s)", getattr(answer, "action", None))
            return None
        return await _collect(call, ask_id)
    finally:
        await _close(call, ask_id)


async def _open(call: Call, names: list[str], workflow: str, sites: list[str]) -> str:
    opened = await call.send(
        AskSecret(id=0, op="open", names=names, workflow=workflow, site=", ".join(sites))
    )
    return str(opened["ask_id"])


async def _collect(call: Call, ask_id: str) -> dict[str, str] | None:
    try:
        got = await call.send(
            AskSecret(id=0, op="wait", ask_id=ask_id, timeout_ms=WAIT_MS), timeout_s=WAIT_MS / 1000 + 30
        )
    except TabPilotError as exc:  # the page was closed, or nothing came in time
        log.info("no secret from the person (%s)", exc.code)
        return None
    values: Any = got.get("values")
    if not isinstance(values, dict):
        return None
    return {str(k): str(v) for k, v in cast(dict[Any, Any], values).items()}


async def _close(call: Call, ask_id: str) -> None:
    with contextlib.suppress(TabPilotError):
        await call.send(AskSecret(id=0, op="close", ask_id=ask_id))
