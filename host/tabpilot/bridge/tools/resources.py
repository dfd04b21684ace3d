"""MCP resources: the rows of a scrape too big to answer inline, read a page at a time.

A scrape whose rows are over `options.max_bytes` answers with the first rows and `result.uri`
(`tabpilot://results/corr-…?browser=…`), also sent as resource_link content. `resources/read` of that
URI (with `offset`, and `limit` rows at most) answers one page of rows as JSON, with the URI of the next
page in `next`. The host reads them from the run's journal; the pilot switch and the sites in scope
apply as to every stored result.
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import parse_qs, urlencode, urlsplit

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceLink,
    ResourceTemplate,
    TextResourceContents,
)

from ...wire.echo import show
from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import ResultRows
from .base import Backend, encode

SCHEME = "tabpilot://results/"
PAGE_ROWS = 1_000  # rows a page holds unless `limit` says fewer (or the bytes budget cuts it)
MAX_ROWS = 10_000
PAGE_BYTES = 256 * 1024
_MIME = "application/json"

TEMPLATE = ResourceTemplate(
    name="scrape-result",
    title="A scrape's rows, a page at a time",
    uri_template=SCHEME + "{correlation_id}{?browser,offset,limit}",
    description="Rows offset.. of a scrape whose result was too big to answer inline (its result.uri); "
    "each page says the next one's URI in `next`.",
    mime_type=_MIME,
)


def link(result: Any) -> ResourceLink | None:
    """The resource_link content for a scrape answer that hands its rows over by reference."""
    body = cast(dict[str, Any], result) if isinstance(result, dict) else {}
    found = body.get("result")
    handle = cast(dict[str, Any], found) if isinstance(found, dict) else {}
    uri, rows, size = handle.get("uri"), handle.get("rows"), handle.get("bytes")
    if not isinstance(uri, str) or not uri.startswith(SCHEME):
        return None
    return ResourceLink(
        name=uri[len(SCHEME) :].partition("?")[0],
        uri=uri,
        title=f"{rows} rows" if isinstance(rows, int) else None,
        description="every row of this result; read it a page at a time (next in each page)",
        mime_type=_MIME,
        size=size if isinstance(size, int) else None,
    )


def _bad(message: str, code: ErrorCode = ErrorCode.INVALID_PARAMS) -> MCPError:
    return MCPError(INVALID_PARAMS, message, {"error": str(code), "message": message})


def _parse(uri: str) -> tuple[str, str | None, int, int]:
    """(correlation_id, browser, offset, limit) of a result URI; invalid_params when it is not one."""
    if not uri.startswith(SCHEME):
        raise _bad(f"no resource {show(uri)}: TabPilot's resources are {SCHEME}<correlation_id>")
    parts = urlsplit(uri)
    cid = parts.path.strip("/")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    try:
        offset = int(query.get("offset", "0"))
        limit = int(query.get("limit", str(PAGE_ROWS)))
    except ValueError:
        raise _bad(f"{show(uri)}: offset and limit are whole numbers") from None
    if offset < 0 or not 1 <= limit <= MAX_ROWS:
        raise _bad(f"{show(uri)}: offset >= 0 and limit 1..{MAX_ROWS}")
    return cid, query.get("browser") or None, offset, limit


def _page_uri(cid: str, browser: str | None, offset: int, limit: int) -> str:
    query: dict[str, Any] = {}
    if browser:
        query["browser"] = browser
    query["offset"] = offset
    if limit != PAGE_ROWS:
        query["limit"] = limit
    return SCHEME + cid + "?" + urlencode(query)


async def read(backend: Backend, uri: str) -> ReadResourceResult:
    """One page of a result's rows."""
    cid, browser, offset, limit = _parse(uri)
    command = ResultRows(id=0, correlation_id=cid, offset=offset, limit=limit, max_bytes=PAGE_BYTES)
    try:
        value: Any = await backend.call(command, browser=browser)
    except TabPilotError as exc:
        raise MCPError(INVALID_PARAMS, exc.message, exc.to_dict()) from None
    nxt = value.get("next_offset")
    value["next"] = None if nxt is None else _page_uri(cid, browser, nxt, limit)
    text = encode(value).decode()
    return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type=_MIME, text=text)])


def handlers(backend: Backend) -> dict[str, Any]:
    """The Server's resource handlers: no fixed resources, one template, reads."""

    async def list_resources(
        _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=[])

    async def list_templates(
        _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[TEMPLATE])

    async def read_resource(
        _ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        return await read(backend, params.uri)

    return {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }
