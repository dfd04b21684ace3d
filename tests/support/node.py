"""Running extension code under node, for the unit tests of the page agent and the worker's libraries."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from tabpilot import paths

NODE = shutil.which("node")
# For a test module whose tests all need node: `pytestmark = node.needed`.
needed = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_module(code: str) -> Any:
    """Run `code` as an ES module in the extension folder (so `import('./worker/...')` finds its files)
    and answer the JSON it prints; a failure in node fails the test with node's stderr."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", code],
        cwd=paths.extension_dir(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
