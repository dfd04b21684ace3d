"""The real native host process, driven by a scripted fake extension and the bridge's BrowserPool."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_extension import FakeError, FakeExtension, NoAnswer

pytestmark = pytest.mark.anyio


async def _started(env: dict[str, str], **kw: Any) -> FakeExtension:
    ext = FakeExtension(env, **kw)
    await ext.start()
    return ext


async def test_status_round_trip_and_clean_exit(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    pool = BrowserPool(connect_wait_s=5)
    try:
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        [info] = await pool.browsers()
        assert info.instance_id == ext.instance_id and info.protocol_ok and info.pilot
        assert ext.welcome is not None and ext.welcome["accepted"] is True
        sock = ext.socket_path()
        assert sock.stat().st_mode & 0o777 == 0o600
        assert Path(tp_dirs["TABPILOT_RUNTIME_DIR"]).stat().st_mode & 0o777 == 0o700
    finally:
        await pool.aclose()
    assert await ext.stop() == 0
    assert not sock.exists(), "the host removes its socket when the extension's port closes"


async def test_big_results_arrive_intact_both_ways(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    big = "x" * (9 * 1024 * 1024) + "é😀"

    async def execute_js(msg: dict[str, Any]) -> NoAnswer:
        # Echo the script back as a chunked result, the way the extension streams big values.
        text = m.encoder.encode({"success": True, "result": msg["script"]}).decode()
        pieces = [text[i : i + m.EXT_CHUNK_CHARS] for i in range(0, len(text), m.EXT_CHUNK_CHARS)]
        for seq, piece in enumerate(pieces):
            ext.send(
                {
                    "type": "result_chunk",
                    "id": msg["id"],
                    "seq": seq,
                    "data": piece,
                    "final": seq == len(pieces) - 1,
                }
            )
        return NoAnswer()

    ext.handlers["execute_js"] = execute_js
    pool = BrowserPool(connect_wait_s=5)
    try:
        value = await pool.call(m.ExecuteJs(id=0, script=big))
        assert value == {"success": True, "result": big}
        # The 9 MiB script reached the extension in Chunk frames of at most 1 MiB (checked by the fake).
        assert any(r.get("script") == big for r in ext.received)
    finally:
        await pool.aclose()
        await ext.stop()


async def test_extension_errors_keep_their_code(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)

    def navigate(msg: dict[str, Any]) -> None:
        raise FakeError("ai_web_pilot_disabled", "Enable 'AI Web Pilot' in extension popup to use this tool")

    ext.handlers["navigate"] = navigate
    pool = BrowserPool(connect_wait_s=5)
    try:
        with pytest.raises(TabPilotError) as err:
            await pool.call(m.Navigate(id=0, url="http://127.0.0.1/"))
        assert err.value.code == ErrorCode.AI_WEB_PILOT_DISABLED
    finally:
        await pool.aclose()
        await ext.stop()


async def test_malformed_frames_are_survived(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    pool = BrowserPool(connect_wait_s=5)
    try:
        ext.send(b"this is not json")
        ext.send(b'{"type":"no_such_type","id":77}')
        ext.send(b'{"type":"result"}')
        ext.send(b'{"type":"result","id":123456,"value":1}')  # answers nothing pending
        ext.send(b"\xff\xfe")
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        errors = [r for r in ext.received if r["type"] == "error"]
        assert [(e["id"], e["code"]) for e in errors] == [(77, ErrorCode.MALFORMED_MESSAGE)]
    finally:
        await pool.aclose()
        assert await ext.stop() == 0


async def test_oversized_frame_is_skipped_not_fatal(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    pool = BrowserPool(connect_wait_s=5)
    try:
        n = m.CHROME_TO_HOST_MAX + 1
        ext.write_raw(n.to_bytes(4, sys.byteorder) + b"\0" * n)
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
    finally:
        await pool.aclose()
        await ext.stop()


async def test_unknown_command_from_bridge(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    try:
        reader, writer = await asyncio.open_unix_connection(str(ext.socket_path()))
        from tabpilot.wire.framing import encode_frame, read_frame

        writer.write(encode_frame(b'{"type":"teleport","id":9}'))
        writer.write(encode_frame(b"{not json"))
        writer.write(encode_frame(b'{"type":"navigate","id":10}'))  # missing url
        await writer.drain()
        answers = [m.from_host_decoder.decode(await read_frame(reader, 1 << 20) or b"") for _ in range(3)]
        assert [(a.id, a.code) for a in answers if isinstance(a, m.Error)] == [
            (9, ErrorCode.UNKNOWN_COMMAND),
            (None, ErrorCode.MALFORMED_MESSAGE),
            (10, ErrorCode.MALFORMED_MESSAGE),
        ]
        writer.close()
    finally:
        await ext.stop()


async def test_protocol_mismatch_is_an_error_not_a_hang(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs, protocol=99)
    assert ext.welcome is not None and ext.welcome["accepted"] is False
    assert "protocol" in ext.welcome["message"]
    pool = BrowserPool(connect_wait_s=5)
    try:
        with pytest.raises(TabPilotError) as err:
            await pool.call(m.ListTabs(id=0))
        assert err.value.code == ErrorCode.PROTOCOL_MISMATCH
        [info] = await pool.browsers()
        assert info.protocol_ok is False
    finally:
        await pool.aclose()
        await ext.stop()


async def test_unanswered_command_times_out(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    ext.handlers["execute_js"] = lambda _: NoAnswer()
    pool = BrowserPool(connect_wait_s=5)
    try:
        with pytest.raises(TabPilotError) as err:
            await pool.call(m.ExecuteJs(id=0, script="while(1){}", timeout_ms=1))
        assert err.value.code == ErrorCode.TIMEOUT
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
    finally:
        await pool.aclose()
        await ext.stop()


async def test_pending_call_fails_when_extension_goes_away(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    ext.handlers["execute_js"] = lambda _: NoAnswer()
    pool = BrowserPool(connect_wait_s=5)
    try:
        call = asyncio.ensure_future(pool.call(m.ExecuteJs(id=0, script="1")))
        while not any(r["type"] == "execute_js" for r in ext.received):
            await asyncio.sleep(0.01)
        await ext.stop()
        with pytest.raises(TabPilotError) as err:
            await call
        assert err.value.code == ErrorCode.EXTENSION_DISCONNECTED and err.value.retryable
    finally:
        await pool.aclose()


async def test_pool_reconnects_to_a_restarted_host(tp_dirs: dict[str, str]) -> None:
    pool = BrowserPool(connect_wait_s=5)
    first = await _started(tp_dirs)
    try:
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        await first.stop()
        second = FakeExtension(tp_dirs)
        restart = asyncio.ensure_future(second.start())
        assert await pool.call(m.Ping(id=0)) == {"pong": True}
        await restart
        await second.stop()
    finally:
        await pool.aclose()


async def test_no_browser_is_extension_not_connected(tp_dirs: dict[str, str]) -> None:
    pool = BrowserPool(connect_wait_s=0.2)
    with pytest.raises(TabPilotError) as err:
        await pool.call(m.Ping(id=0))
    assert err.value.code == ErrorCode.EXTENSION_NOT_CONNECTED
    assert "tabpilot install" in err.value.message


async def test_stale_socket_is_removed(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    run.mkdir(mode=0o700)
    stale = run / "deadbeefdeadbeef.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(stale))
    s.close()
    ext = await _started(tp_dirs)
    try:
        assert not stale.exists()
    finally:
        await ext.stop()


async def test_insecure_socket_dir_is_refused(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    run.mkdir(mode=0o755)
    run.chmod(0o755)
    ext = await _started(tp_dirs)
    try:
        assert not ext.socket_path().exists(), "the host must not listen in a directory others can enter"
        with pytest.raises(TabPilotError) as err:
            await BrowserPool(connect_wait_s=0.2).call(m.Ping(id=0))
        assert err.value.code == ErrorCode.INSECURE_SOCKET_DIR
    finally:
        await ext.stop()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another uid")
async def test_peer_with_another_uid_is_refused(tmp_path: Path) -> None:
    from tabpilot.native.host import NativeHost

    class _Sink:
        def write(self, data: bytes) -> None: ...

    host = NativeHost(_Sink(), tmp_path)  # type: ignore[arg-type]
    path = Path("/tmp") / f"tp-peer-{os.getpid()}.sock"
    server = await asyncio.start_unix_server(host.bridges.serve, path=str(path))
    try:
        path.chmod(0o777)  # only the uid check stands between the peer and the host here
        loop = asyncio.get_running_loop()
        out = await loop.run_in_executor(None, _connect_as_nobody, str(path))
        answer = m.from_host_decoder.decode(out)
        assert isinstance(answer, m.Error) and answer.code == ErrorCode.PEER_REJECTED
    finally:
        server.close()
        path.unlink(missing_ok=True)


def _connect_as_nobody(path: str) -> bytes:
    """Fork a child that drops to uid 65534, connects, and hands back what the host said."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: no asyncio, no pytest, just the syscalls
        try:
            os.close(rfd)
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            os.write(wfd, data[4:])
        finally:
            os._exit(0)
    os.close(wfd)
    out = b""
    while chunk := os.read(rfd, 65536):
        out += chunk
    os.close(rfd)
    os.waitpid(pid, 0)
    return out
