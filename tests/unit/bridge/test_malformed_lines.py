"""A corpus of malformed and unexpected lines sent to a real `tabpilot mcp` over stdio: every line that
needs an answer gets its JSON-RPC error (a valid notification or response gets none, as JSON-RPC
says), and the bridge serves the next ping."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from tabpilot.bridge.rescue import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from tabpilot.bridge.stdio import MAX_LINE_BYTES, LineSplitter, TooLong
from tabpilot.wire.errors import ErrorCode

from .test_strict_lines import TABPILOT, WAIT_S, Peer, bridge

pytestmark = pytest.mark.anyio

METHOD_NOT_FOUND = -32601
ID = b"@ID"  # replaced by the case's own request id, so each answer is told apart


@dataclass(frozen=True)
class Expect:
    """The answer a line needs: an error with this code (echoing the line's id, or null), a result,
    a tool's error result with this stable code, or nothing."""

    kind: str  # "error" | "result" | "tool_error" | "none"
    code: int | str | None = None
    echo: bool = False


def error(code: int, *, echo: bool = False) -> Expect:
    return Expect("error", code, echo)


RESULT = Expect("result")
NONE = Expect("none")


def tool_error(code: str) -> Expect:
    return Expect("tool_error", code)


def req(method: str, params: str | None = None, extra: str = "") -> bytes:
    body = f'{{"jsonrpc":"2.0","id":@ID,"method":"{method}"{extra}'
    return (body + (f',"params":{params}' if params is not None else "") + "}").encode()


def call(arguments: str) -> bytes:
    return req("tools/call", f'{{"name":"interact","arguments":{arguments}}}')


def note(method: str, params: str) -> bytes:
    return f'{{"jsonrpc":"2.0","method":"{method}","params":{params}}}'.encode()


INIT_ODD = '{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}'
ARGS_150 = '{"action":"execute_js","script":"1","x":' + "[" * 150 + "]" * 150 + "}"
LONG_SELECTOR = '{"action":"click","selector":"' + "s" * 5000 + '","bogus":1}'

CASES: list[tuple[str, bytes, Expect]] = [
    # Not JSON at all.
    ("garbage", b"{this is not json", error(PARSE_ERROR)),
    ("cut short", b'{"jsonrpc":"2.0","id":@ID,"method":"ping"', error(PARSE_ERROR)),
    ("one brace too many", req("ping") + b"}", error(PARSE_ERROR)),
    ("two messages on one line", req("ping") + req("ping"), error(PARSE_ERROR)),
    ("open brackets x100000", b"[" * 100_000, error(PARSE_ERROR)),
    ("open braces x100000", b'{"a":' * 100_000, error(PARSE_ERROR)),
    ("closers only", b"]]]}}}", error(PARSE_ERROR)),
    ("crossed brackets", b"[{]}", error(PARSE_ERROR)),
    ("invalid UTF-8 alone", b"\xff\xfe\xfd", error(PARSE_ERROR)),
    ("NUL bytes", b"\x00\x00\x00", error(PARSE_ERROR)),
    ("single quotes", b"{'jsonrpc':'2.0','id':1,'method':'ping'}", error(PARSE_ERROR)),
    ("trailing comma", b'{"jsonrpc":"2.0","id":@ID,"method":"ping",}', error(PARSE_ERROR)),
    ("a comment", b'// {"jsonrpc":"2.0"}', error(PARSE_ERROR)),
    # JSON, but no message.
    ("empty object", b"{}", error(INVALID_REQUEST)),
    ("id only", b'{"jsonrpc":"2.0","id":1}', error(INVALID_REQUEST)),
    ("jsonrpc only", b'{"jsonrpc":"2.0"}', error(INVALID_REQUEST)),
    ("null", b"null", error(INVALID_REQUEST)),
    ("a number", b"42", error(INVALID_REQUEST)),
    ("a string", b'"ping"', error(INVALID_REQUEST)),
    ("true", b"true", error(INVALID_REQUEST)),
    ("empty batch", b"[]", error(INVALID_REQUEST)),
    ("batch of one ping", b"[" + req("ping") + b"]", error(INVALID_REQUEST)),
    ("500-deep arrays", b"[" * 500 + b"]" * 500, error(INVALID_REQUEST)),
    ("500-deep objects", b'{"a":' * 500 + b"1" + b"}" * 500, error(INVALID_REQUEST)),
    ("300-deep arrays", b"[" * 300 + b"]" * 300, error(INVALID_REQUEST)),
    ("result without id", b'{"jsonrpc":"2.0","result":{}}', error(INVALID_REQUEST)),
    ("result not an object", b'{"jsonrpc":"2.0","id":1,"result":5}', error(INVALID_REQUEST)),
    ("error without message", b'{"jsonrpc":"2.0","id":1,"error":{"code":1}}', error(INVALID_REQUEST)),
    # Requests of the wrong shape: answered with their id when it is a usable one.
    ("no jsonrpc", b'{"id":@ID,"method":"ping"}', error(INVALID_REQUEST, echo=True)),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":@ID,"method":"ping"}', error(INVALID_REQUEST, echo=True)),
    ("jsonrpc a number", b'{"jsonrpc":2,"id":@ID,"method":"ping"}', error(INVALID_REQUEST, echo=True)),
    ("method a number", b'{"jsonrpc":"2.0","id":@ID,"method":7}', error(INVALID_REQUEST, echo=True)),
    ("method null", b'{"jsonrpc":"2.0","id":@ID,"method":null}', error(INVALID_REQUEST, echo=True)),
    ("params a string", req("ping", '"x"'), error(INVALID_REQUEST, echo=True)),
    ("params a number", req("ping", "3"), error(INVALID_REQUEST, echo=True)),
    ("tools/call params a list", req("tools/call", "[]"), error(INVALID_REQUEST, echo=True)),
    ("id true", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', error(INVALID_REQUEST)),
    ("id false", b'{"jsonrpc":"2.0","id":false,"method":"ping"}', error(INVALID_REQUEST)),
    ("id a fraction", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', error(INVALID_REQUEST)),
    ("id an object", b'{"jsonrpc":"2.0","id":{},"method":"ping"}', error(INVALID_REQUEST)),
    ("id a list", b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', error(INVALID_REQUEST)),
    ("id null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', error(INVALID_REQUEST)),
    ("500-deep request", req("ping", '{"a":' * 500 + "1" + "}" * 500), error(INVALID_PARAMS, echo=True)),
    ("lone surrogate", call('{"action":"navigate","url":"\\ud800"}'), error(INVALID_PARAMS, echo=True)),
    # Requests the SDK answers itself.
    ("unknown method", req("no/such/method"), error(METHOD_NOT_FOUND, echo=True)),
    ("tools/call without params", req("tools/call"), error(INVALID_PARAMS, echo=True)),
    ("tools/call empty params", req("tools/call", "{}"), error(INVALID_PARAMS, echo=True)),
    ("arguments a string", call('"x"'), error(INVALID_PARAMS, echo=True)),
    ("tools/list cursor a number", req("tools/list", '{"cursor":5}'), error(INVALID_PARAMS, echo=True)),
    ("logging level unknown", req("logging/setLevel", '{"level":"loud"}'), error(INVALID_PARAMS, echo=True)),
    ("initialize again, empty", req("initialize", "{}"), error(INVALID_PARAMS, echo=True)),
    ("odd progress token", req("ping", '{"_meta":{"progressToken":{}}}'), error(INVALID_PARAMS, echo=True)),
    ("initialize, unknown version", req("initialize", INIT_ODD), RESULT),
    ("150-deep arguments", call(ARGS_150), tool_error(ErrorCode.INVALID_PARAMS)),
    # Odd but valid: answered as usual.
    ("extra top-level key", req("ping", None, ',"extra":1'), RESULT),
    ("duplicate id key", b'{"jsonrpc":"2.0","id":"x","id":@ID,"method":"ping"}', RESULT),
    ("string id", b'{"jsonrpc":"2.0","id":"@ID","method":"ping"}', RESULT),
    ("CR before the newline", req("ping") + b"\r", RESULT),
    ("invalid UTF-8 in a string", req("ping", b'{"a":"\xff"}'.decode("latin-1")), RESULT),
    ("a 5 MB ping", req("ping", '{"a":"' + "x" * 5_000_000 + '"}'), RESULT),
    ("unknown tool", req("tools/call", '{"name":"nope"}'), tool_error(ErrorCode.UNKNOWN_ACTION)),
    ("unknown action", call('{"action":"fly"}'), tool_error(ErrorCode.UNKNOWN_ACTION)),
    ("action a number", call('{"action":5}'), tool_error(ErrorCode.INVALID_PARAMS)),
    ("a 5,000-character selector", call(LONG_SELECTOR), tool_error(ErrorCode.INVALID_PARAMS)),
    # Valid notifications and responses: JSON-RPC answers none.
    ("unknown notification", b'{"jsonrpc":"2.0","method":"notifications/nope"}', NONE),
    ("cancel of nothing", note("notifications/cancelled", '{"requestId":99}'), NONE),
    ("cancel with an odd id", note("notifications/cancelled", '{"requestId":{}}'), NONE),
    ("progress of nothing", note("notifications/progress", '{"progressToken":"t","progress":1}'), NONE),
    ("response to nothing", b'{"jsonrpc":"2.0","id":77,"result":{}}', NONE),
    ("error response to nothing", b'{"jsonrpc":"2.0","id":78,"error":{"code":1,"message":"x"}}', NONE),
    ("blank line", b"   \t", NONE),
]  # fmt: skip


def _line(template: bytes, msg_id: int) -> bytes:
    return template.replace(ID, str(msg_id).encode())


def _ping(msg_id: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "ping"})


def _mismatch(name: str, expect: Expect, msg: dict[str, Any], msg_id: Any) -> str | None:
    """What is wrong with `msg` as the answer to case `name`, or None."""
    if expect.kind == "error":
        err = msg.get("error") or {}
        want_id = msg_id if expect.echo else None
        if err.get("code") != expect.code or msg.get("id") != want_id:
            return f"{name}: wanted error {expect.code} id {want_id!r}, got {str(msg)[:300]}"
        return None
    result = msg.get("result")
    if not isinstance(result, dict):
        return f"{name}: wanted a result, got {str(msg)[:300]}"
    if expect.kind == "tool_error":
        structured: dict[str, Any] = result.get("structuredContent") or {}
        if not result.get("isError") or structured.get("error") != expect.code:
            return f"{name}: wanted tool error {expect.code}, got {str(msg)[:300]}"
    return None


async def _next(peer: Peer) -> dict[str, Any]:
    assert peer.proc.stdout is not None
    while b"\n" not in peer.buf:
        peer.buf += await peer.proc.stdout.receive()
    raw, _, peer.buf = peer.buf.partition(b"\n")
    return json.loads(raw)


async def test_every_line_of_the_corpus_is_answered_and_the_bridge_serves_on(
    tp_dirs: dict[str, str],
) -> None:
    assert len(CASES) >= 50
    problems: list[str] = []
    awaiting: dict[Any, tuple[str, Expect]] = {}  # request id -> its case, until its answer comes

    def settle(msg: dict[str, Any]) -> None:
        name, expect = awaiting.pop(msg["id"])
        if (problem := _mismatch(name, expect, msg, msg["id"])) is not None:
            problems.append(problem)

    with anyio.fail_after(WAIT_S * 2):
        async with bridge(tp_dirs) as peer:
            for n, (name, template, expect) in enumerate(CASES):
                msg_id = 1000 + n
                line = _line(template, msg_id)
                if expect.kind in ("result", "tool_error") or expect.echo:
                    awaiting[str(msg_id) if b'"@ID"' in template else msg_id] = (name, expect)
                await peer.send(line)
                await peer.send(_ping(f"after-{n}"))
                nulls: list[dict[str, Any]] = []
                # A line the bridge refuses is answered before the next line is read, so a null-id
                # error for this case comes before the ping's answer; answers by id may come later.
                while True:
                    msg = await _next(peer)
                    if "method" in msg:
                        continue  # the server's own notifications
                    if msg.get("id") == f"after-{n}":
                        break
                    if msg.get("id") is None:
                        nulls.append(msg)
                    elif msg["id"] in awaiting:
                        settle(msg)
                    else:
                        problems.append(f"{name}: an answer nobody asked for: {str(msg)[:300]}")
                wanted_nulls = 1 if expect.kind == "error" and not expect.echo else 0
                if len(nulls) != wanted_nulls:
                    problems.append(f"{name}: {len(nulls)} null-id answers, wanted {wanted_nulls}")
                elif nulls and (problem := _mismatch(name, expect, nulls[0], None)) is not None:
                    problems.append(problem)
            while awaiting:
                msg = await _next(peer)
                if "method" not in msg and msg.get("id") in awaiting:
                    settle(msg)
            await peer.send(_ping("last"))
            assert "result" in await peer.reply("last")
            assert peer.proc.returncode is None
    assert problems == []


async def test_a_line_over_the_limit_is_answered_with_its_id_and_dropped_unread(
    tp_dirs: dict[str, str],
) -> None:
    big = req("ping", '{"a":"' + "x" * (MAX_LINE_BYTES + 1024) + '"}').replace(ID, b"7")
    with anyio.fail_after(WAIT_S):
        async with bridge(tp_dirs) as peer:
            await peer.send(big)
            refused = await peer.reply(7)
            assert refused["error"]["code"] == INVALID_REQUEST
            assert refused["error"]["data"]["error"] == ErrorCode.MALFORMED_MESSAGE
            await peer.send(_ping("next"))
            assert "result" in await peer.reply("next")


async def test_requests_before_initialize_are_answered(tp_dirs: dict[str, str]) -> None:
    proc = await anyio.open_process([TABPILOT, "mcp"], env=tp_dirs)
    peer = Peer(proc)
    try:
        with anyio.fail_after(WAIT_S):
            await peer.send(_ping("early"))
            assert "result" in await peer.reply("early")
            await peer.send(b"{}")
            assert (await peer.reply(None))["error"]["code"] == INVALID_REQUEST
            # The SDK refuses a method it serves until the handshake, with this code.
            await peer.send(req("tools/list").replace(ID, b"2"))
            assert (await peer.reply(2))["error"]["code"] == INVALID_PARAMS
            await peer.send(req("no/such/method").replace(ID, b"3"))
            assert (await peer.reply(3))["error"]["code"] == METHOD_NOT_FOUND
            await peer.send(call('{"action":"fly"}').replace(ID, b"4"))
            assert (await peer.reply(4))["error"]["code"] == INVALID_PARAMS
    finally:
        proc.kill()
        await proc.wait()
        await proc.aclose()


@pytest.mark.parametrize("cut", [1, 3, 7, 100])
def test_a_line_over_the_limit_comes_out_as_its_start_however_the_bytes_are_cut(cut: int) -> None:
    stream = b'{"id":1}\n' + b"x" * 50 + b"\n" + b'{"id":2}\n' + b"y" * 30
    splitter = LineSplitter(limit=20)
    lines = [line for i in range(0, len(stream), cut) for line in splitter.feed(stream[i : i + cut])]
    lines += splitter.feed(b"")  # EOF: the unterminated last line, too long as well
    assert [type(line) for line in lines] == [bytes, TooLong, bytes, TooLong]
    assert lines[0] == b'{"id":1}\n' and lines[2] == b'{"id":2}\n'
    long_line, last = lines[1], lines[3]
    assert isinstance(long_line, TooLong) and isinstance(last, TooLong)
    assert long_line.size == 51 and long_line.startswith(b"xxxx")
    assert last.size == 30
