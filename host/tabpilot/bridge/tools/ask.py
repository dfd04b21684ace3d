"""Asking the person, not the agent, for a secret a run needs (a replay's password, which is never
stored): through the MCP client's URL-mode elicitation, which sends the person to a page of the
bridge's own (secret_page) so the value never passes through the client or the agent. MCP forbids form
mode for passwords, so a client that offers only that is not asked: the error then tells the agent to
ask the person.

On the 2025-11-25 protocol the client is asked in the middle of the tool call. On 2026-07-28 a call
cannot ask: it answers `input_required` with the request and the page's id as its state, and the
client calls again with the person's answer; the page then gives the values.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult
from mcp_types.version import is_version_at_least

from . import secret_page

log = logging.getLogger("tabpilot.bridge")

# How long the person has to type the secret once they agreed to open the page.
WAIT_S = 300.0
_KEY = "tabpilot_secret"
_INPUT_REQUIRED_VERSION = "2026-07-28"


class NeedInput(Exception):  # not an error: the tool call's answer is a question
    """The call's answer is a request for the person's input (the 2026-07-28 protocol's input_required)."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


def can_ask(ctx: Context[Any, Any] | None) -> bool:
    """Whether the client takes URL-mode elicitation."""
    if ctx is None:
        return False
    try:
        caps = ctx.client_capabilities
    except (AttributeError, ValueError):  # outside a request
        return False
    elicitation = caps.elicitation if caps is not None else None
    return elicitation is not None and elicitation.url is not None


async def ask_person(ctx: Context[Any, Any] | None, names: list[str], why: str) -> dict[str, str] | None:
    """The values of `names` as the person typed them, or None when the client cannot ask, or the person
    declined or gave none in time. Raises NeedInput on the 2026-07-28 protocol's first round."""
    if ctx is None or not can_ask(ctx):
        return None
    message = f"{why} Enter it on a TabPilot page on this computer; it does not go to the agent."
    if is_version_at_least(ctx.protocol_version or "", _INPUT_REQUIRED_VERSION):
        return await _by_retry(ctx, names, why, message)
    page = secret_page.open_page(names, why)
    try:
        answer = await ctx.elicit_url(message, page.url, page.id)
        if answer.action != "accept":
            log.info("the person did not open the secret page (%s)", answer.action)
            return None
        values = await page.wait(WAIT_S)
    finally:
        page.close()
    if values is not None:
        await ctx.session.send_elicit_complete(page.id)
    return values


async def _by_retry(
    ctx: Context[Any, Any], names: list[str], why: str, message: str
) -> dict[str, str] | None:
    page = secret_page.find(ctx.request_state)
    if page is None or page.names != names:
        if page is not None:
            page.close()
        page = secret_page.open_page(names, why)
        params = ElicitRequestURLParams(mode="url", message=message, url=page.url, elicitation_id=page.id)
        request = ElicitRequest(method="elicitation/create", params=params)
        raise NeedInput(
            InputRequiredResult(
                input_requests={_KEY: request}, request_state=page.id, result_type="input_required"
            )
        )
    answer: Any = (ctx.input_responses or {}).get(_KEY)
    try:
        if getattr(answer, "action", None) != "accept":
            log.info("the person did not open the secret page (%s)", getattr(answer, "action", None))
            return None
        return await page.wait(WAIT_S)
    finally:
        page.close()
