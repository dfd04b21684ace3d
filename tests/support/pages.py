"""Test pages served on 127.0.0.1 by the same server the demo uses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabpilot.demo.server import Site, serve_site
from tabpilot.demo.server import serve as _serve

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@contextmanager
def serve(directory: Path = PAGES) -> Iterator[str]:
    """Serve the fixture pages; yields the base URL."""
    with _serve(directory) as url:
        yield url


@pytest.fixture(scope="module")
def site_with_login() -> Iterator[Site]:
    """The fixture pages behind the demo server's sign-in (a Site: URL, credentials, sessions). A test
    module whose pages need it takes it as its `site` fixture: `site = pages.site_with_login`."""
    with serve_site(PAGES) as running:
        yield running
