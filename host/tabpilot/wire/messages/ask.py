"""Asking the person for a secret a run needs, on an extension page in their own browser."""

from __future__ import annotations

import msgspec

from ..timer import TimeoutMs
from .base import Command


class AskSecret(Command, tag="ask_secret"):
    """Ask the person, not the agent, for secret params: `open` shows an extension page in a new tab
    with one password field per name (saying which `workflow` on which `site` asks) and answers its
    `ask_id`; `wait` answers the values once the person sent them (`timeout` after `timeout_ms`);
    `close` closes the page and forgets it. The values go page → worker → host → bridge only."""

    op: str
    ask_id: str | None = None
    names: list[str] = msgspec.field(default_factory=lambda: list[str]())
    workflow: str = ""
    site: str = ""
    timeout_ms: TimeoutMs = 300_000
