"""Test pages served on 127.0.0.1 by the same server the demo uses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tabpilot.demo.server import serve as _serve

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@contextmanager
def serve(directory: Path = PAGES) -> Iterator[str]:
    """Serve the fixture pages; yields the base URL."""
    with _serve(directory) as url:
        yield url
