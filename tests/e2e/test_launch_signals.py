"""`tabpilot browser launch` in the foreground: Ctrl-C (or a closed terminal, or a supervisor's SIGTERM)
takes the browser down, and the exit status tells which signal ended it (128 + N, Ctrl-C: 130)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tabpilot.browser import process, registry


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_the_browser_and_sets_the_exit_status(
    env: dict[str, str], signum: signal.Signals
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabpilot.cli", "browser", "launch", "--profile", "sig", "--headless"],
        env={**os.environ, **env},
        stderr=subprocess.PIPE,
        text=True,
        # As from an interactive shell: a test runner started in the background inherits SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    try:
        # It says so once the extension has connected: the moment a person would press Ctrl-C.
        for line in proc.stderr:
            if "Ctrl-C stops it" in line:
                break
        else:
            raise AssertionError(f"launch ended early with {proc.wait()}")
        old = os.environ.copy()
        os.environ.update(env)
        try:
            folder = registry.locate("sig")
            pid = process.running_pid(folder)
        finally:
            os.environ.clear()
            os.environ.update(old)
        assert pid is not None
        proc.send_signal(signum)
        assert proc.wait(timeout=60) == 128 + signum
        assert not process.alive(pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
