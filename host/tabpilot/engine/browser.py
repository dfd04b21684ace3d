"""The one interface between the engine and the browser."""

from __future__ import annotations

from typing import Any, Protocol

from ..wire.messages import Command


class Browser(Protocol):
    """Runs one extension command and returns its decoded result value.

    Failures raise TabPilotError with the extension's code (timeout, element_not_found, tab_closed,
    extension_disconnected, ...). The implementation enforces its own deadline per command."""

    async def call(self, command: Command) -> Any:
        """Send `command` (its id is assigned by the implementation) and await the answer."""
        ...
