"""Replies of the commands that run the agent's own JavaScript."""

from __future__ import annotations

from typing import Any

from .base import Reply, TabReply


class ExecuteJsReply(Reply):
    """The script's JSON result (secrets redacted, `capped` when cut), or what it threw."""

    success: bool | None = None  # false with `error` when the script threw
    result: Any = None
    capped: bool | None = None
    redacted: int | None = None
    error: str | None = None
    stack: str | None = None


class ExtractScriptReply(TabReply):
    """The extractor's returned JSON, and how many secrets were replaced by "[REDACTED]"."""

    result: Any = None
    redacted: int | None = None
