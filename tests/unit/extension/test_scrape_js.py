"""Static guarantees of the scraping code in the extension: what it must never touch."""

from __future__ import annotations

import re

import pytest

from tabpilot import assets, paths

EXT = paths.extension_dir()
SCRAPE_JS = [
    "page/extract.js",
    "page/paginate.js",
    "page/redraw.js",
    "page/feed_end.js",
    "worker/commands/extract.js",
    "worker/commands/count.js",
    "worker/commands/paginate.js",
    "worker/commands/scroll_load.js",
]
# The scrape spec's security controls: the schema engine never reads cookies or storage, and runs no
# code it was given.
FORBIDDEN = re.compile(r"\b(cookie|localStorage|sessionStorage|indexedDB|caches|eval|Function)\b")


@pytest.mark.parametrize("name", SCRAPE_JS)
def test_scraping_never_reads_cookies_or_storage_nor_runs_given_code(name: str) -> None:
    code = "\n".join(
        line for line in (EXT / name).read_text().splitlines() if not line.lstrip().startswith("//")
    )
    assert not FORBIDDEN.findall(code), f"{name} mentions {FORBIDDEN.findall(code)}"


def test_the_page_agent_carries_the_scraping_scripts() -> None:
    for name in ("page/extract.js", "page/redraw.js", "page/paginate.js"):
        assert name in assets.agent_files(EXT)
