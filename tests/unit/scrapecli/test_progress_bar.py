"""The CLI's progress bar shows what the MCP notifications carry: pages out of the total, rows, the ETA."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tabpilot.scrapecli.run import Bar
from tabpilot.wire import messages as m

pytestmark = pytest.mark.anyio


async def test_the_bar_counts_pages_out_of_the_total_with_rows_and_time_left() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=140, color_system=None)
    text = "page 412 of 1,000, 41,200 rows, about 1 min 10 s left (run corr-0123456789ab)"
    with Bar(console, enabled=True) as bar:
        await bar.update(m.Progress(id=1, progress=412, total=1_000, message=text))
    shown = out.getvalue()
    assert "412/1000" in shown and text in shown


async def test_no_total_no_fraction() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=140, color_system=None)
    with Bar(console, enabled=True) as bar:
        await bar.update(m.Progress(id=1, progress=7, total=None, message="7 pages, 700 rows"))
    shown = out.getvalue()
    assert "7/? 7 pages, 700 rows" in shown
