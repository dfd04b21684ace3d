"""The bridge's MCP tools: one module per tool group, registered by one line each below."""

from __future__ import annotations

from . import extraction, help, page, scrape, screenshot, state, tabs_actions, telemetry, workflows
from .composite import CompositeTool
from .configure import CONFIGURE
from .interact import INTERACT
from .observe import OBSERVE

TOOLS: tuple[CompositeTool, ...] = (
    INTERACT,
    OBSERVE,
    CONFIGURE,
)
# Modules that add actions to the tools above (they register when imported).
ACTION_MODULES = (page, scrape, workflows, extraction, tabs_actions, screenshot, state, telemetry, help)
