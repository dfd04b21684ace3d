"""The MCP server object: the registered tools bound to a backend."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from ... import __version__
from ...wire.echo import show
from ...wire.errors import ErrorCode, TabPilotError
from ..transport import Incoming, Outgoing, Writer
from . import TOOLS, metadata
from .base import Backend, error
from .composite import CompositeTool
from .strict import MAX_DEPTH, too_deep


class BridgeServer(MCPServer[Any]):
    """MCPServer whose argument-validation failures carry our structured error like every other, and
    which can serve stdio through the lines and writer that faststart hands over."""

    async def run_stdio_async(
        self, lines: AsyncGenerator[str, None] | None = None, out: Writer | None = None
    ) -> None:
        """Serve the handed-over `lines` and `out`; without them, the SDK's own stdio on fds 0/1."""
        if lines is None or out is None:
            await super().run_stdio_async()
            return
        lowlevel = self._lowlevel_server
        await lowlevel.run(Incoming(lines, out), Outgoing(out), lowlevel.create_initialization_options())

    composites: dict[str, CompositeTool]  # set by build_server

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool; arguments that fail its input schema give an `invalid_params` result."""
        tool = self.composites.get(name)
        if tool is None:
            known = ", ".join(self.composites)
            return error(TabPilotError(ErrorCode.UNKNOWN_ACTION, f"no tool {show(name)}; the tools: {known}"))
        # Before the SDK's validation, which recurses through the arguments and drops unknown fields.
        if too_deep(arguments):
            return error(
                TabPilotError(
                    ErrorCode.INVALID_PARAMS, f"{name}: the arguments nest deeper than {MAX_DEPTH} levels"
                )
            )
        problem = tool.check(arguments)
        if problem is not None:
            return error(problem)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in cause.errors()
            )
            return error(TabPilotError(ErrorCode.INVALID_PARAMS, f"{name}: {problems}"))


def build_server(backend: Backend) -> BridgeServer:
    """The bridge's MCP server with every tool group."""
    server = BridgeServer(
        "tabpilot",
        version=__version__,
        tools=[metadata.apply(tool.build(backend)) for tool in TOOLS],
        log_level="WARNING",
    )
    server.composites = {tool.name: tool for tool in TOOLS}
    return server
