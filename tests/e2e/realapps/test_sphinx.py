"""Sphinx with the furo theme: a docs page read as markdown keeps its table, its code block and its
nested list, and leaves the theme's navigation out."""

from __future__ import annotations

import pytest
from selenium import webdriver

from tests.fixtures.realapps import data
from tests.support import browser
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


async def test_docs_page_as_markdown(driver: webdriver.Chrome, env: dict[str, str], sphinx_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=sphinx_url)
        out = await call(client, "observe", what="page", format="markdown", max_chars=20_000)
    md: str = out["markdown"] if "markdown" in out else out["text"]
    lines = md.splitlines()
    # The settings table: a header, its rule, then one row per setting, in order.
    rows = [line for line in lines if line.startswith("|")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    assert cells[0] == ["Name", "Default", "Meaning"]
    assert cells[2:] == [[f"`{s.name}`", s.default, s.meaning] for s in data.settings()]
    # The code block, fenced, verbatim.
    assert f"```python\n{data.DOCS_CODE}\n```" in md or f"```\n{data.DOCS_CODE}\n```" in md
    # The numbered steps with their sub-items nested under them.
    for n, (step, subs) in enumerate(data.DOCS_STEPS.items(), start=1):
        at = lines.index(f"{n}. {step}")
        end = next(
            (i for i in range(at + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")), len(lines)
        )
        nested = [line.strip() for line in lines[at + 1 : end] if line.strip()]
        assert nested == [f"- {sub}" for sub in subs], (step, lines[at:end])
    # The theme's chrome stays out: the sidebar's search box and the footer's credits.
    assert "Made with" not in md and "Search" not in md
