"""The MCP server: the SDK's protocol server, answering tools/list and tools/call with every tool group
bound to a backend."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
)
from pydantic import ValidationError

from ... import __version__
from ...wire.echo import show
from ...wire.errors import ErrorCode, TabPilotError
from ..stdio import Wire
from ..transport import Incoming, Outgoing
from . import TOOLS, metadata, resources
from .base import Backend, error
from .composite import CompositeTool
from .strict import MAX_DEPTH, too_deep

log = logging.getLogger("tabpilot.bridge")


class BridgeTools(MCPServer[Any]):
    """The tools, whose argument-validation failures carry our structured error like every other."""

    def __init__(self, backend: Backend) -> None:
        tools = [metadata.apply(tool.build(backend)) for tool in TOOLS]
        super().__init__("tabpilot", version=__version__, tools=tools, log_level="WARNING")
        self.composites: dict[str, CompositeTool] = {tool.name: tool for tool in TOOLS}

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


def build_server(backend: Backend) -> Server[Any]:
    """The bridge's MCP server: its tools, and the rows of big scrape results as resources. No tool list
    changes while it runs, so it declares none and sends none."""
    tools = BridgeTools(backend)

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=await tools.list_tools())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        context = Context(request_context=ctx, mcp_server=tools, input_params=params)
        try:
            answer = await tools.call_tool(params.name, params.arguments or {}, context)
            if isinstance(answer, CallToolResult):
                found = resources.link(answer.structured_content)
                if found is not None:  # the rows that did not fit, as a resource the client can read
                    answer.content = [*answer.content, found]
            return answer
        except MCPError:
            raise
        except Exception as exc:  # every action reports its own failures: this one is ours
            log.exception("tools/call %s crashed", params.name)
            return error(
                TabPilotError(
                    ErrorCode.INTERNAL_ERROR,
                    f"{params.name} failed unexpectedly ({type(exc).__name__}); the bridge log has details",
                )
            )

    return Server(
        "tabpilot",
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        **resources.handlers(backend),
    )


async def serve_stdio(server: Server[Any], wire: Wire) -> None:
    """Serve MCP over `wire` until the client closes stdin. Malformed lines are answered (see
    bridge.transport), not dropped as the SDK's own stdio transport would."""
    incoming = Incoming(wire.read_lines(), wire)
    await server.run(incoming, Outgoing(wire), server.create_initialization_options())
