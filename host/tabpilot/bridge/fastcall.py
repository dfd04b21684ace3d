"""Answer the cheapest read-only tool calls before the MCP SDK has loaded.

A new bridge's first tool call would otherwise wait 0.7-1 s for the SDK's import. Once faststart has
answered the opening from its cache, it offers each `tools/call` here. Served are `observe
{what: "tabs"}` and `configure {action: "status"}`, with no `browser` argument (and no `--browser`
pin), when one browser is connected (or, for status, none), and with nothing in the request beyond
the name, the arguments, a progress token and the 2026-07-28 envelope. Anything else is declined, and
so is a call that meets trouble on the way (no host, a socket error, a slow host): the SDK then does
the whole call. Both read and change nothing, so doing one again is harmless, and every answer other
than these stays the SDK's own: argument errors, unknown tools, browser selection, launching.

What goes out here is the bytes the SDK would send for the same call (tests/unit/bridge/test_fastcall.py
holds them side by side). A call runs to its end before faststart reads the next message: it reports
no progress (neither action has any to report), and a cancellation sent after it finds it answered,
which the protocol allows; faststart drops that notice.

The stdlib only, with blocking sockets: this runs while the SDK imports on another thread, which
holds the interpreter's lock half of the time, so every import here costs double (msgspec and the
wire types would add ≈ 30 ms). The few wire tags used are spelled here; a test keeps them in step.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import struct
from pathlib import Path
from typing import Any, cast

from .. import __version__, paths
from ..link import localsock
from ..wire.errors import ErrorCode, TabPilotError

log = logging.getLogger("tabpilot.bridge")

# The longest the main thread waits on a host before it leaves the call to the SDK (which has the
# real time limits and serves other messages meanwhile).
FAST_WAIT_S = 2.0
_HEADER = struct.Struct("=I")  # framing.py's frame header; that module imports asyncio
# From wire.messages: the tags of HostInfo, ListTabs, GetStatus, Result and Error, the socket's frame
# limit, the protocol version, and the fields of BrowserInfo that status shows (with their defaults).
HOST_INFO, LIST_TABS, GET_STATUS, RESULT, ERROR = "host_info", "tabs", "status", "result", "error"
SOCKET_MAX_FRAME = 257 * 1024 * 1024
PROTOCOL_VERSION = 1
BROWSER_FIELDS: dict[str, Any] = {
    "instance_id": "",
    "label": "",
    "profile": "",
    "browser_name": "",
    "browser_version": "",
    "pilot": False,
    "extension_version": "",
    "protocol": 0,
    "host_version": "",
}
SERVER_INFO = {"name": "tabpilot", "version": __version__}  # as tools.app.build_server names it
# link.client.NOT_CONNECTED_FIX (that module imports asyncio); a test keeps the two equal.
NOT_CONNECTED_FIX = (
    "No browser with the TabPilot extension is connected. Fix: open Chrome/Chromium with the TabPilot "
    "extension loaded (run `tabpilot install` once, then load the folder it prints at chrome://extensions), "
    "or start a dedicated profile with `tabpilot browser launch --detach`; "
    "`tabpilot doctor` checks every link."
)
# Errors after which the SDK's path does more than report them (it launches a profile or waits for
# the browser to come back).
_SDK_HANDLES = frozenset({ErrorCode.EXTENSION_NOT_CONNECTED, ErrorCode.EXTENSION_DISCONNECTED})
_META_KEYS = ("progressToken",)
_SERVED = {"observe": ("what", "tabs"), "configure": ("action", "status")}  # tool -> (selector, action)
_ENVELOPE_PREFIX = "io.modelcontextprotocol/"


class Declined(Exception):
    """The SDK serves this call, all of it."""


class HostLink:
    """A blocking connection to one host's socket, asked one command at a time."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(FAST_WAIT_S)
        self.ids = 0
        try:
            self.sock.connect(str(path))
            self.info = _info(self.request(HOST_INFO))
        except BaseException:
            self.sock.close()
            raise

    def request(self, tag: str) -> Any:
        """The decoded result value of the command `tag` (one without fields); TabPilotError if the
        host answers with an error."""
        self.ids += 1
        payload = json.dumps({"type": tag, "id": self.ids}).encode()
        try:
            self.sock.sendall(_HEADER.pack(len(payload)) + payload)
            while True:
                parsed: Any = json.loads(self._frame())
                msg = cast(dict[str, Any], parsed) if isinstance(parsed, dict) else {}
                kind = msg.get("type")
                if kind == ERROR and msg.get("id") is None:
                    raise Declined(f"host refused the connection: {msg.get('code')}")
                if kind in (RESULT, ERROR) and msg.get("id") == self.ids:
                    break
        except (OSError, ValueError, RecursionError) as exc:  # socket.timeout is an OSError
            raise Declined(f"host socket: {type(exc).__name__}: {exc}") from exc
        if kind == RESULT:
            return msg.get("value")
        code, message, retryable = msg.get("code"), msg.get("message"), msg.get("retryable", False)
        if not (isinstance(code, str) and isinstance(message, str) and isinstance(retryable, bool)):
            raise Declined("an error answer of another shape")
        raise TabPilotError(code, message, retryable=retryable, data=msg.get("data"))

    def _frame(self) -> bytes:
        (length,) = _HEADER.unpack(self._exactly(_HEADER.size))
        if length > SOCKET_MAX_FRAME:
            raise Declined(f"frame of {length} bytes")
        return self._exactly(length)

    def _exactly(self, size: int) -> bytes:
        buf = bytearray()
        while len(buf) < size:
            chunk = self.sock.recv(min(size - len(buf), 1 << 20))
            if not chunk:
                raise Declined("host closed the socket")
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()


class FastCalls:
    """The calls served before the SDK has loaded (see the module's docstring)."""

    def __init__(self, runtime_dir: Path | None = None, launch_name: str | None = None) -> None:
        self.runtime_dir = runtime_dir or paths.runtime_dir()
        self.launch_name = launch_name

    def answer(self, msg_id: Any, params: dict[str, Any], modern: bool) -> bytes | None:
        """The JSON-RPC reply to a `tools/call` with these params, or None: the SDK serves it."""
        action = _which(params)
        if action is None or not isinstance(msg_id, int | str) or isinstance(msg_id, bool):
            return None
        try:
            with contextlib.ExitStack() as stack:
                links = [stack.enter_context(contextlib.closing(link)) for link in self._links()]
                value = self._status(links) if action == "status" else _tabs(links)
            return _reply(msg_id, value, modern, is_error=False)
        except Declined as why:
            log.info("tools/call %s left to the SDK: %s", action, why)
        except TabPilotError as exc:
            if exc.code not in _SDK_HANDLES:
                log.info("%s failed: %s", action, exc.code)
                with contextlib.suppress(Declined):
                    return _reply(msg_id, exc.to_dict(), modern, is_error=True)
        except Exception:  # an answer of a shape not foreseen: the SDK's path reports it its own way
            log.exception("tools/call %s left to the SDK", action)
        return None

    def _links(self) -> list[HostLink]:
        """A link to each host in the runtime directory, as the SDK's pool would find them."""
        try:
            os.stat(self.runtime_dir)
        except OSError:
            return []  # no directory: no browser has ever connected
        try:
            localsock.check_private_dir(self.runtime_dir)
            found = localsock.list_sockets(self.runtime_dir)
        except (TabPilotError, OSError) as exc:
            raise Declined(str(exc)) from exc
        links: list[HostLink] = []
        for path in found:
            try:
                links.append(HostLink(path))
            except (Declined, TabPilotError, OSError) as exc:  # a stale socket (the pool removes it)
                for link in links:
                    link.close()
                raise Declined(f"host at {path}: {exc}") from exc
        return links

    def _status(self, links: list[HostLink]) -> dict[str, Any]:
        """What `configure {action: "status"}` answers (bridge/tools/configure/status.py)."""
        infos = [link.info for link in links]
        versions: dict[str, Any] = {"bridge": __version__, "protocol": PROTOCOL_VERSION}
        out: dict[str, Any] = {
            "connected": bool(infos),
            "browsers": [{k: i[k] for k in BROWSER_FIELDS if k != "host_version"} for i in infos],
            "pilot_enabled": None,
            "versions": versions,
        }
        if not infos:
            out["fix"] = NOT_CONNECTED_FIX
            if name := self.launch_name:
                out["fix"] = (
                    f"No browser is connected yet; the next interact or observe call starts profile {name!r}."
                )
            return out
        if len(links) != 1:
            raise Declined("several browsers: choosing one is the SDK path's")
        link, selected = links[0], infos[0]
        out["browser"] = selected["instance_id"]
        out["pilot_enabled"] = selected["pilot"]
        versions["host"] = selected["host_version"]
        versions["extension"] = selected["extension_version"]
        try:
            live = link.request(GET_STATUS)
        except TabPilotError as exc:
            log.info("status of %s unavailable: %s", selected["instance_id"], exc.code)
            return out
        if not isinstance(live, dict):
            raise Declined("a status of another shape")
        live = cast(dict[str, Any], live)
        out["pilot_enabled"] = bool(live.get("pilot"))
        if isinstance(live.get("tracked_tab_id"), int):
            out["tracked_tab_id"] = live["tracked_tab_id"]
        return out


def _tabs(links: list[HostLink]) -> dict[str, Any]:
    """What `observe {what: "tabs"}` answers (bridge/tools/observe/tabs.py)."""
    if len(links) != 1:
        raise Declined("no browser, or several: the SDK path waits, launches or chooses")
    value: dict[str, list[dict[str, Any]]] = links[0].request(LIST_TABS)
    return {"tabs": [_tab(t) for t in value["tabs"]]}


def _tab(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": raw["id"],
        "url": raw.get("url", ""),
        "title": raw.get("title", ""),
        "active": bool(raw.get("active")),
        "window_id": raw.get("window_id", -1),
    }


def _info(raw: Any) -> dict[str, Any]:
    """The fields of a HostInfo answer that status shows, checked as BrowserInfo's decoder would."""
    if not isinstance(raw, dict) or not isinstance(cast(dict[str, Any], raw).get("instance_id"), str):
        raise Declined("a host info of another shape")
    info = {k: cast(dict[str, Any], raw).get(k, default) for k, default in BROWSER_FIELDS.items()}
    if any(type(info[k]) is not type(default) for k, default in BROWSER_FIELDS.items()):
        raise Declined("a host info of another shape")
    return info


def _which(params: dict[str, Any]) -> str | None:
    """The action (tabs, status) when the call is one this module serves exactly as asked, else None."""
    if set(params) - {"name", "arguments", "_meta"}:
        return None  # a task request, or anything newer: the SDK knows what it means
    meta: Any = params.get("_meta", {})
    if not isinstance(meta, dict) or any(
        k not in _META_KEYS and not k.startswith(_ENVELOPE_PREFIX) for k in cast(dict[str, Any], meta)
    ):
        return None
    args: Any = params.get("arguments")
    if not isinstance(args, dict):
        return None
    args = cast(dict[str, Any], args)
    served = _SERVED.get(str(params.get("name")))
    if served is None:
        return None
    selector, action = served
    if args.get(selector) != action or set(args) - {selector, "browser"} or args.get("browser") is not None:
        return None
    return action


def _reply(msg_id: Any, value: Any, modern: bool, *, is_error: bool) -> bytes:
    """The SDK's serialization of `ok(value)` / `error(...)` as a reply: keys in the order it writes
    them (the 2026-07-28 era adds `resultType`, and the server's name in `_meta`), strings escaped as
    it escapes them. A float anywhere is declined: the stdlib writes some (1e+16) unlike pydantic (1e16)."""
    if _has_float(value):
        raise Declined("a float in the result")
    text = _dumps(value)
    result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": is_error}
    if modern:
        result["resultType"] = "complete"
    result["structuredContent"] = value
    if modern:
        result["_meta"] = {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
    try:
        return _dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode() + b"\n"
    except UnicodeEncodeError as exc:  # a lone surrogate from the page
        raise Declined("text that is not UTF-8") from exc


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _has_float(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float):
            return True
        if isinstance(node, dict):
            stack.extend(cast(dict[str, Any], node).values())
        elif isinstance(node, list):
            stack.extend(cast(list[Any], node))
    return False
