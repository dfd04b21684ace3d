"""An answer for every line the SDK's JSON parser refuses, which the SDK would otherwise drop in silence.

The SDK parses with pydantic-core, which refuses JSON nested 200 deep and strings holding a lone UTF-16
surrogate (both valid JSON), and a client whose line is not JSON at all would wait forever. Here such a
line is read again with the standard library: not JSON gets the JSON-RPC parse error; a request too
deep to walk, or whose text is not Unicode, gets an `invalid_params` error naming where; anything else
goes back to the SDK as a value, so a tool call nested deeper than the parser's limit still reaches
the tool, whose own depth check answers it.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, cast

from ..wire.echo import clip

log = logging.getLogger("tabpilot.bridge")

MAX_DEPTH = 400  # deeper is answered without being parsed; the tools refuse far shallower
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]', re.S)
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


def reread(line: str) -> Any:
    """The message on `line` as plain JSON values, for the SDK to validate again; raises Refusal."""
    depth, msg_id, request = _outline(line)
    if depth > MAX_DEPTH:
        raise Refusal(
            INVALID_PARAMS, f"the message nests deeper than {MAX_DEPTH} levels", msg_id, answer=request
        )
    try:
        value: Any = json.loads(line)
    except ValueError as exc:
        raise Refusal(PARSE_ERROR, f"Parse error: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise Refusal(INVALID_REQUEST, "a JSON-RPC message is an object")
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


def _outline(line: str) -> tuple[int, Any, bool]:
    """(deepest nesting, the top-level id, whether it is a request) without parsing the line."""
    depth = deepest = 0
    msg_id: Any = None
    has_id = has_method = False
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif text in "}]":
            depth -= 1
        elif depth == 1 and text in ('"id"', '"method"'):
            rest = line[token.end() :].lstrip()
            if not rest.startswith(":"):
                continue
            if text == '"method"':
                has_method = True
                continue
            try:
                msg_id, _ = _decoder.raw_decode(rest[1:].lstrip())
                has_id = isinstance(msg_id, str | int) and not isinstance(msg_id, bool)
            except ValueError:
                pass
    return deepest, msg_id if has_id else None, has_id and has_method


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
