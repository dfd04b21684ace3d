"""An answer for every line the SDK's JSON parser or message types refuse, which the SDK would
otherwise drop in silence, leaving a client waiting forever.

The SDK parses with pydantic-core, which refuses JSON nested 200 deep and strings holding a lone UTF-16
surrogate (both valid JSON). Here such a line is read again with the standard library: not JSON gets
the JSON-RPC parse error; a request too deep to walk, or whose text is not Unicode, gets an
`invalid_params` error naming where; anything else goes back to the SDK as a value, so a tool call
nested deeper than the parser's limit still reaches the tool, whose own depth check answers it.

JSON-RPC answers every line but a notification or a response: so a line that is no valid message
(`{}`, a request whose id is `true`, a batch, a response without a result) gets Invalid Request, with
its id when it is a request whose id can be read (a response's id belongs to the other side's
requests, so it is never echoed), else with id null.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any, cast

from ..wire.echo import clip

log = logging.getLogger("tabpilot.bridge")

MAX_DEPTH = 400  # deeper is answered without being parsed; the tools refuse far shallower
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]', re.S)
_CLOSER = {"}": "{", "]": "["}
_decoder = json.JSONDecoder()


class Refusal(Exception):
    """The line gets this JSON-RPC error (or, for a notification, nothing)."""

    def __init__(self, code: int, message: str, msg_id: Any = None, *, answer: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id
        self.answer = answer

    def reply(self) -> bytes | None:
        """The JSON-RPC error to send, with the stable code in `data`, or None for a notification."""
        if not self.answer:
            return None
        data = {"error": "invalid_params" if self.code == INVALID_PARAMS else "malformed_message"}
        error = {"code": self.code, "message": self.message, "data": data}
        body = {"jsonrpc": "2.0", "id": self.msg_id, "error": error}
        return json.dumps(body, separators=(",", ":")).encode() + b"\n"


@dataclass
class Outline:
    """What can be told of a line without parsing it."""

    depth: int = 0  # the deepest nesting
    balanced: bool = True  # every bracket closed by its own kind: false means no JSON at all
    msg_id: Any = None  # the top-level id, when it is a usable one (a string or an integer)
    has_id: bool = False  # an "id" key at the top level, usable or not
    has_method: bool = False

    @property
    def request(self) -> bool:
        return self.has_method and self.msg_id is not None


def reread(line: str) -> Any:
    """The message on `line` as plain JSON values, for the SDK to validate again; raises Refusal."""
    shape = outline(line)
    if not shape.balanced:
        raise Refusal(PARSE_ERROR, "Parse error: not JSON (its brackets do not match)")
    if shape.depth > MAX_DEPTH:
        deep = f"the message nests deeper than {MAX_DEPTH} levels"
        if shape.request:
            raise Refusal(INVALID_PARAMS, deep, shape.msg_id)
        # A notification gets no answer even when refused; anything else is no message at all.
        notification = shape.has_method and not shape.has_id
        raise Refusal(INVALID_REQUEST, f"Invalid Request: {deep}", answer=not notification)
    try:
        value: Any = json.loads(line)
    except ValueError as exc:
        raise Refusal(PARSE_ERROR, f"Parse error: not JSON ({clip(str(exc))})") from None
    if isinstance(value, list):
        raise Refusal(INVALID_REQUEST, "Invalid Request: MCP has no batches; send one message per line")
    if not isinstance(value, dict):
        raise Refusal(INVALID_REQUEST, "Invalid Request: a JSON-RPC message is an object")
    msg = cast(dict[str, Any], value)
    where = _lone_surrogate(msg)
    if where is not None:
        raise Refusal(
            INVALID_PARAMS,
            f"{clip(where)}: a string holds a lone UTF-16 surrogate, which is not text; send valid Unicode",
            msg.get("id"),
            answer="id" in msg and "method" in msg,
        )
    return msg


def not_a_message(msg: dict[str, Any]) -> Refusal:
    """The refusal of a JSON object the SDK's message types do not accept."""
    msg_id = msg.get("id")
    usable = _usable_id(msg_id) and "method" in msg
    return Refusal(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", msg_id if usable else None)


def unusable_id(line: str) -> bool:
    """Whether `line`, read as a notification, has an id after all (null, true, 1.5, an object)."""
    return '"id"' in line and outline(line).has_id


def too_long(head: bytes, size: int, limit: int) -> Refusal:
    """The refusal of a line over `limit` bytes, of which only `head` was kept."""
    shape = outline(head.decode("utf-8", errors="replace"))
    message = f"Invalid Request: the line is {size:,} bytes or more, over the limit of {limit:,}"
    return Refusal(INVALID_REQUEST, message, shape.msg_id if shape.request else None)


def outline(line: str) -> Outline:
    """The line's depth, bracket balance, top-level id and method, without parsing it."""
    shape = Outline()
    opened: list[str] = []
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in "{[":
            opened.append(text)
            shape.depth = max(shape.depth, len(opened))
        elif text in "}]":
            if not opened or opened.pop() != _CLOSER[text]:
                shape.balanced = False
                return shape
        elif len(opened) == 1 and text in ('"id"', '"method"'):
            rest = line[token.end() :].lstrip()
            if not rest.startswith(":"):
                continue
            if text == '"method"':
                shape.has_method = True
                continue
            shape.has_id = True
            try:
                msg_id, _ = _decoder.raw_decode(rest[1:].lstrip())
            except ValueError:
                continue
            shape.msg_id = msg_id if _usable_id(msg_id) else None
    if opened:
        shape.balanced = False
    return shape


def _usable_id(msg_id: Any) -> bool:
    return isinstance(msg_id, str | int) and not isinstance(msg_id, bool)


def _lone_surrogate(msg: dict[str, Any]) -> str | None:
    """The path of the first string (or key) holding a lone surrogate, or None."""
    stack: list[tuple[Any, str]] = [(msg, "$")]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            if _bad(node):
                return at
        elif isinstance(node, dict):
            for k, v in cast(dict[str, Any], node).items():
                if _bad(k):
                    return at
                stack.append((v, f"{at}.{k}"))
        elif isinstance(node, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(cast(list[Any], node)))
    return None


def _bad(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
