"""How long a crashed extension process takes to come back: `python -m bench.crash [--kills N] [--json]`.

Headless Chromium with the extension (the e2e tests' launcher, private directories), then N times:
SIGKILL the extension's renderer process (`--extension-process`), and time until a new host's
socket is in place and until a ping through it is answered (what an agent's next call waits for).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.support import browser, procnet
from tests.support.browser import Chromium

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m

from .stats import machine_facts

_LIMIT_S = 60.0


async def _one(chromium: Chromium, run: Path) -> tuple[float, float]:
    [sock] = list(run.glob("*.sock"))
    old = sock.stat().st_ino
    renderers = procnet.extension_processes(chromium.browser_pid())
    if not renderers:
        raise RuntimeError("no extension process")
    os.kill(renderers[0], signal.SIGKILL)
    started = time.monotonic()
    while not [s for s in run.glob("*.sock") if s.stat().st_ino != old]:
        if time.monotonic() - started > _LIMIT_S:
            raise RuntimeError(f"no new host within {_LIMIT_S:.0f} s")
        await asyncio.sleep(0.01)
    socket_s = time.monotonic() - started
    pool = BrowserPool(run, connect_wait_s=_LIMIT_S)
    try:
        await pool.call(m.Ping(id=0))
    finally:
        await pool.aclose()
    return socket_s, time.monotonic() - started


def run(kills: int) -> dict[str, Any]:
    """Kill the extension process `kills` times; seconds to the new socket and to an answered ping."""
    base = Path(tempfile.mkdtemp(prefix="tpcrash", dir="/tmp"))
    env = {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
    }
    profile = base / "profile"
    browser.prepare_profile(profile, env)
    chromium = Chromium(profile, env)
    chromium.start()
    try:
        browser.wait_until(lambda: list((base / "run").glob("*.sock")), timeout_s=30, what="the host")
        times = [asyncio.run(_one(chromium, base / "run")) for _ in range(kills)]
    finally:
        chromium.quit()
    sockets = [round(s, 2) for s, _ in times]
    pings = [round(p, 2) for _, p in times]
    return {
        "kills": kills,
        "to_socket_s": sockets,
        "to_ping_s": pings,
        "median_to_ping_s": round(statistics.median(pings), 2),
        "machine": machine_facts(browser.CHROMIUM),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the figures (a table, or JSON)."""
    parser = argparse.ArgumentParser(prog="python -m bench.crash", description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = run(args.kills)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"extension process killed {out['kills']} times")
    print(f"  seconds to the new host's socket: {out['to_socket_s']}")
    print(f"  seconds to an answered ping:      {out['to_ping_s']} (median {out['median_to_ping_s']})")
    print(f"  machine: {out['machine']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
