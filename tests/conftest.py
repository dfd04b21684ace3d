"""Shared fixtures: private temporary TabPilot directories, so no test touches the real ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The test files that take longest, measured, first in each step: xdist hands them out first, so that
# no worker is left with one of them while the others have finished. Browser tests go out a module at a
# time (`./dev test` runs them with --no-loadscope-reorder, which keeps this order; xdist's own puts
# the modules with the most tests first, and these have one or two).
SLOWEST_FIRST = (
    "unit/test_structure.py",
    "unit/markdown/test_chunk.py",
    "unit/bridge/test_chain.py",
    "unit/bridge/test_scrape_views.py",
    "unit/bridge/test_malformed_lines.py",
    "unit/scrapecli/test_commands.py",
    "unit/test_cli.py",
    "unit/link/test_comeback.py",
    "unit/bridge/test_strict_lines.py",
    "unit/browser/test_profile_memory.py",
    "e2e/test_bench_smoke.py",
    "e2e/test_pipe.py",
    "e2e/test_sites.py",
    "e2e/test_sites_stored.py",
    "e2e/test_redraw_feed.py",
    "e2e/test_realfix_scrape.py",
    "e2e/test_popup_fit.py",
    "e2e/test_sites_rewritten_links.py",
    "e2e/test_secrets_oracles.py",
    "e2e/test_sites_late_loads.py",
    "e2e/test_sites_before_request.py",
    "e2e/realapps/test_follow.py",
    "e2e/test_hostile_input.py",
    "e2e/test_replay_asks_the_person.py",
    "e2e/test_popup.py",
    "e2e/test_follow_pace.py",
    "e2e/realapps/test_zero_knowledge.py",
    "e2e/test_first_hour.py",
    "e2e/test_secrets_pixels.py",
    "e2e/test_wheel.py",
    "e2e/realapps/test_zero_knowledge_feeds.py",
    "e2e/realapps/test_fetch_pages.py",
    "e2e/test_follow_ahead.py",
    "e2e/test_script_consent.py",
    "e2e/test_scrape_page.py",
)


def _order(item: pytest.Item) -> tuple[bool, int]:
    path = item.path.as_posix()
    ranks = (i for i, end in enumerate(SLOWEST_FIRST) if path.endswith(f"tests/{end}"))
    return "tests/e2e/" in path, next(ranks, len(SLOWEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Unit tests first: a failing one shows in a minute or two, not after the browser tests. In each,
    the slowest files first (a file's tests keep their order)."""
    items.sort(key=_order)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tp_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """TABPILOT_* directories under a short temp path (Unix socket paths are limited to ~107 bytes)."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="tp", dir="/tmp"))
    env = {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env
    import shutil

    shutil.rmtree(base, ignore_errors=True)
