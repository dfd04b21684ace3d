"""Stable error codes shared by the host, the bridge and the extension, and the one exception type."""

from __future__ import annotations

import enum
import re
from typing import Any, cast

from .echo import ECHO_CHARS, MESSAGE_CHARS, clip

# Strings in an error's data are clipped too (a selector quoted there), beyond this many characters.
DATA_CHARS = 1_000
_SCAN_CHARS = 100_000  # of a message or data string looked at for quotes; the rest is cut anyway
# An input quoted in an error, however it got there (a browser's DOMException quotes the selector
# whole, a repr quotes a URL): a quoted span or an unbroken run longer than ECHO_CHARS. A single quote
# opens a span only after a non-word character, so the apostrophes of prose ("doesn't") never do.
_QUOTED = re.compile(
    rf"""(?<!\w)'[^'\n]{{{ECHO_CHARS + 1},}}(?:'|\Z)|"[^"\n]{{{ECHO_CHARS + 1},}}(?:"|\Z)"""
    rf"""|`[^`\n]{{{ECHO_CHARS + 1},}}(?:`|\Z)|\S{{{ECHO_CHARS + 1},}}"""
)


class ErrorCode(enum.StrEnum):
    """Every error TabPilot reports carries one of these codes; they never change meaning."""

    # Connection and setup
    EXTENSION_NOT_CONNECTED = "extension_not_connected"
    EXTENSION_DISCONNECTED = "extension_disconnected"
    AMBIGUOUS_BROWSER = "ambiguous_browser"
    BROWSER_NOT_FOUND = "browser_not_found"
    PROTOCOL_MISMATCH = "protocol_mismatch"
    INSECURE_SOCKET_DIR = "insecure_socket_dir"
    PEER_REJECTED = "peer_rejected"
    LAUNCH_FAILED = "launch_failed"
    # Safety
    AI_WEB_PILOT_DISABLED = "ai_web_pilot_disabled"
    NAVIGATION_BLOCKED = "navigation_blocked"
    SITE_NOT_ALLOWED = "site_not_allowed"
    DOMAIN_MISMATCH = "domain_mismatch"
    SECRET_UNMASKABLE = "secret_unmaskable"
    SECRETS_ON_PAGE = "secrets_on_page"  # a script on a page holding secrets the agent did not type
    # Requests
    UNKNOWN_ACTION = "unknown_action"
    UNKNOWN_COMMAND = "unknown_command"
    INVALID_PARAMS = "invalid_params"
    MALFORMED_MESSAGE = "malformed_message"
    MALFORMED_REPLY = "malformed_reply"  # an extension answer that does not fit its reply struct
    RESULT_TOO_LARGE = "result_too_large"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    INTERNAL_ERROR = "internal_error"
    # Pages and tabs
    TAB_NOT_FOUND = "tab_not_found"
    TAB_CLOSED = "tab_closed"
    NAVIGATION_FAILED = "navigation_failed"
    NAVIGATION_REDIRECT = "navigation_redirect"
    HTTP_ERROR = "http_error"  # a fetched page answered 4xx/5xx
    NOT_HTML = "not_html"  # a fetched page is not an HTML document
    SCRIPT_ERROR = "script_error"
    ELEMENT_NOT_FOUND = "element_not_found"
    INVALID_SELECTOR = "invalid_selector"
    NOT_INTERACTABLE = "not_interactable"
    STALE_REF = "stale_ref"
    SNAPSHOT_NOT_FOUND = "snapshot_not_found"
    # Workflows and extraction
    WORKFLOW_IN_PROGRESS = "workflow_in_progress"
    WORKFLOW_NOT_FOUND = "workflow_not_found"
    INVALID_OUTPUT_SCHEMA = "invalid_output_schema"
    VALIDATION_FAILED = "validation_failed"
    STRATEGY_STALE = "strategy_stale"
    STRATEGY_NOT_FOUND = "strategy_not_found"


class TabPilotError(Exception):
    """An error with a stable code that the agent or the human can act on."""

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        *,
        retryable: bool = False,
        data: Any = None,
    ) -> None:
        message = bounded(message, MESSAGE_CHARS)
        super().__init__(message)
        self.code = ErrorCode(code) if code in ErrorCode._value2member_map_ else code
        self.message = message
        self.retryable = retryable
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        """The agent-facing shape: `{"error": code, "message": ..., ...}`."""
        out: dict[str, Any] = {"error": str(self.code), "message": self.message}
        if self.retryable:
            out["retryable"] = True
        if self.data is not None:
            out["data"] = clipped(self.data)
        return out

    def __repr__(self) -> str:
        return f"TabPilotError({str(self.code)!r}, {self.message!r})"


def bounded(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, each input it quotes cut to ECHO_CHARS: the one rule every
    error's message and data strings pass, wherever they were written."""
    head = text[:_SCAN_CHARS]
    head = _QUOTED.sub(lambda found: _clip_span(found.group()), head)
    if len(text) > _SCAN_CHARS:
        head += f"… ({len(text) - _SCAN_CHARS:,} more characters)"
    return clip(head, limit)


def _clip_span(span: str) -> str:
    quote = span[0] if span[0] in "'\"`" else ""
    closed = bool(quote) and len(span) > 1 and span[-1] == quote
    inner = span[len(quote) : len(span) - 1 if closed else len(span)]
    return quote + clip(inner) + (quote if closed else "")


def clipped(value: Any, depth: int = 0) -> Any:
    """`value` with long strings cut (an error's data may quote the agent's input or a page's text)."""
    if isinstance(value, str):
        return bounded(value, DATA_CHARS)
    if depth > 8:  # error data is shallow; anything deeper is not worth walking
        return value
    if isinstance(value, dict):
        return {k: clipped(v, depth + 1) for k, v in cast(dict[Any, Any], value).items()}
    if isinstance(value, list):
        return [clipped(v, depth + 1) for v in cast(list[Any], value)]
    return value
