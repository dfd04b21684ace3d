"""The launcher's URL check against a scripted host: retried on a load timeout, refused otherwise."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

from tabpilot.browser import urlcheck
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.framing import encode_frame, read_frame

URL = "http://127.0.0.1:9/page"


async def _scripted_host(
    path: Path, answers: list[m.Result | m.Error], seen: list[m.Message]
) -> asyncio.Server:
    """A host that answers HostInfo, then each Navigate with the next scripted answer."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (frame := await read_frame(reader, 1 << 20)) is not None:
            cmd = m.to_host_decoder.decode(frame)
            seen.append(cmd)
            if isinstance(cmd, m.HostInfo):
                info = m.BrowserInfo(instance_id="0123456789abcdef", pilot=True)
                reply: m.Message = m.Result(id=cmd.id, value=msgspec.Raw(m.encoder.encode(info)))
            else:
                reply = msgspec.structs.replace(answers.pop(0), id=cmd.id)
            writer.write(encode_frame(m.encoder.encode(reply)))
        writer.close()

    return await asyncio.start_unix_server(serve, path=str(path))


def _run(tp_dirs: dict[str, str], answers: list[m.Result | m.Error]) -> tuple[str, int, list[m.Message]]:
    sock = Path(tp_dirs["TABPILOT_RUNTIME_DIR"]).with_name("h.sock")
    seen: list[m.Message] = []

    async def scenario() -> tuple[str, int]:
        async with await _scripted_host(sock, answers, seen):
            return await urlcheck.navigate(sock, URL)

    final, tries = asyncio.run(scenario())
    return final, tries, seen


def _loaded(url: str) -> m.Result:
    return m.Result(id=0, value=msgspec.Raw(msgspec.json.encode({"tab_id": 1, "url": url, "title": "t"})))


def test_first_tab_loads(tp_dirs: dict[str, str]) -> None:
    final, tries, seen = _run(tp_dirs, [_loaded(URL)])
    assert (final, tries) == (URL, 1)
    nav = [s for s in seen if isinstance(s, m.Navigate)]
    assert len(nav) == 1 and nav[0].url == URL and nav[0].tab_id is None


def test_a_load_that_times_out_is_retried(tp_dirs: dict[str, str]) -> None:
    timeout = m.Error(code=ErrorCode.TIMEOUT, message="did not finish loading", retryable=True)
    final, tries, _ = _run(tp_dirs, [timeout, _loaded(URL + "?redirected")])
    assert (final, tries) == (URL + "?redirected", 2)


def test_gives_up_after_the_bound(tp_dirs: dict[str, str]) -> None:
    timeout = m.Error(code=ErrorCode.TIMEOUT, message="did not finish loading", retryable=True)
    with pytest.raises(TabPilotError) as info:
        _run(tp_dirs, [timeout] * urlcheck.ATTEMPTS)
    assert info.value.code == ErrorCode.LAUNCH_FAILED
    assert f"in {urlcheck.ATTEMPTS} tries" in info.value.message


def test_pilot_off_is_not_retried(tp_dirs: dict[str, str]) -> None:
    off = m.Error(code=ErrorCode.AI_WEB_PILOT_DISABLED, message="pilot off")
    with pytest.raises(TabPilotError) as info:
        _run(tp_dirs, [off])
    assert info.value.code == ErrorCode.AI_WEB_PILOT_DISABLED


def test_without_pilot_nothing_is_sent() -> None:
    notes = urlcheck.ensure_url(Path("/nonexistent.sock"), URL, pilot=False)
    assert "not checked" in notes[0]
