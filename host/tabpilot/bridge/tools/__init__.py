"""The bridge's MCP tools: one package per tool (interact/, observe/, configure/), each listing its actions.

The modules beside them are what the tools share: `composite` (a tool made of actions), `base` (what
an action gets), `scrape` (the scrape job's actions, on interact and observe), `strict`, `outschema`,
`metadata`, `reference` (the table in docs/tools.md) and `app` (the MCP server).
"""

from __future__ import annotations

from .composite import CompositeTool
from .configure import CONFIGURE
from .interact import INTERACT
from .observe import OBSERVE

TOOLS: tuple[CompositeTool, ...] = (
    INTERACT,
    OBSERVE,
    CONFIGURE,
)
