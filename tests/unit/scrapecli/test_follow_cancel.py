"""`tabpilot results follow | cancel` from a second terminal, on a run started elsewhere: the follower
waits for its end, the cancel answers every row read and the resume that goes on; a real CLI process
talking to the real host, whose extension is the scripted fake."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.scrape import parse_request
from tests.support.fake_extension import FakeExtension, NoAnswer
from tests.support.host import host_pool
from tests.unit.native.test_host_scrape import SCHEMA, table
from tests.unit.scrapecli.test_commands import cli

pytestmark = pytest.mark.anyio

# One page read, then a wait that never ends: the run is running until it is cancelled.
STUCK = {
    "operation": "workflow",
    "options": {"delay_ms": 0},
    "steps": [
        {"type": "extract", "selector": "tr", "schema": SCHEMA},
        {"type": "wait", "selector": ".never", "timeout_ms": 60_000},
    ],
}


async def test_follow_and_cancel_a_run_started_elsewhere(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    ext.handlers["wait_for"] = lambda msg: NoAnswer()
    try:
        async with host_pool(tp_dirs) as pool:
            started = await pool.call(m.Scrape(id=0, request=parse_request(STUCK), wait_ms=0))
        cid = started["correlation_id"]
        follower = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tabpilot.cli", "results", "follow", cid, "--quiet",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        async with asyncio.timeout(30):
            while not any(r["type"] == "wait_for" for r in ext.received):
                await asyncio.sleep(0.02)
        code, out, err = await cli("results", "cancel", cid)
        assert code == 0, err
        assert [r["name"] for r in json.loads(out)] == ["Widget", "Gadget"]
        assert err.startswith("cancelled: the rows read so far are kept"), err
        assert f'add "resume": "{cid}" to the request' in err

        # The follower saw the run end as it ended: cancelled (not complete: exit 1), every row written.
        async with asyncio.timeout(30):
            followed, said = await follower.communicate()
        assert follower.returncode == 1, said
        assert [r["name"] for r in json.loads(followed)] == ["Widget", "Gadget"]
        assert re.search(r"\[cancelled\]", said.decode()), said
    finally:
        await ext.stop()


async def test_following_an_unknown_run_says_so(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    try:
        code, _, err = await cli("results", "follow", "corr-0123456789ab", "--quiet")
        assert code != 0 and "workflow_not_found" in err, err
    finally:
        await ext.stop()


async def test_ctrl_c_stops_following_and_the_run_goes_on(tp_dirs: dict[str, str]) -> None:
    import signal

    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    ext.handlers["wait_for"] = lambda msg: NoAnswer()
    try:
        async with host_pool(tp_dirs) as pool:
            started = await pool.call(m.Scrape(id=0, request=parse_request(STUCK), wait_ms=0))
            cid = started["correlation_id"]
            async with asyncio.timeout(30):
                while not any(r["type"] == "wait_for" for r in ext.received):
                    await asyncio.sleep(0.02)
            follower = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tabpilot.cli", "results", "follow", cid,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            assert follower.stderr is not None
            async with asyncio.timeout(30):
                first = await follower.stderr.readline()  # Ctrl-C is the follower's from here
                assert first.decode().startswith(f"following {cid}"), first
                follower.send_signal(signal.SIGINT)
                _, said = await follower.communicate()
            assert follower.returncode == 130, said
            assert said.decode().startswith(f"stopped following {cid} (it goes on: 1 pages, 2 rows"), said
            still = await pool.call(m.JobResult(id=0, correlation_id=cid))
            assert still["status"] == "running" and not any(r["type"] == "cancel" for r in ext.received)
    finally:
        await ext.stop()
