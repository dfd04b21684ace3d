"""Style and types are part of the test suite: ruff (lint and format) and pyright strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_ruff_lint() -> None:
    _run(str(BIN / "ruff"), "check", ".")


def test_ruff_format() -> None:
    _run(str(BIN / "ruff"), "format", "--check", ".")


def test_pyright_strict() -> None:
    _run(str(BIN / "pyright"), "--pythonpath", sys.executable)
