"""Stopping a profile's browser: a stop returns once the browser's helper processes are gone too."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tabpilot.browser import process

# A helper that outlives its browser by a moment (as Chromium's do) or, with FOREVER, never leaves.
_HELPER = textwrap.dedent(
    """
    import os, sys, time
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.02)
    time.sleep(float("inf") if sys.argv[1] == "forever" else 0.5)
    """
)
# Like Chromium, it handles SIGINT itself even when started with it ignored (a background job).
_BROWSER = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    helper = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]])
    print(helper.pid, flush=True)
    time.sleep(60)
    """
)


def _browser(helper_mode: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _BROWSER, _HELPER, helper_mode],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # as the launcher starts a profile's browser
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def test_stop_waits_for_helpers_that_leave_after_the_browser() -> None:
    proc, helper = _browser("linger")
    try:
        stopped = process.terminate(proc.pid, timeout_s=5)
        assert stopped.signal == "SIGINT"
        assert not process.alive(helper), "the helper was still running when the stop returned"
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_a_helper_that_stays_is_killed_with_its_group() -> None:
    proc, helper = _browser("forever")
    try:
        stopped = process.terminate(proc.pid, timeout_s=1)
        assert stopped.signal == "SIGINT"
        assert not process.alive(helper)
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
