"""Sphinx with the furo theme: a docs page read as markdown keeps its table, its code block and its
nested list, and leaves the theme's navigation out."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


async def test_docs_page_as_markdown(client: Client, sphinx_url: str) -> None:
    task = tasks.SPHINX
    out = await tasks.run(task, sphinx_url, lambda tool, args: call(client, tool, **args))
    assert task.answer(out) == task.expected()
    # The theme's chrome stays out: the sidebar's search box, the page footer's credits.
    assert "Search" not in out["markdown"] and "Made with" not in out["markdown"]


def test_the_structure_reader_sees_what_is_wrong() -> None:
    """The markdown reader the check relies on notices a lost row, a lost fence and a flattened list."""
    good = tasks.markdown_structure(
        "| A | B |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\n\n1. One\n\n   - a\n   - b\n2. Two\n"
    )
    assert good == {
        "table": [["A", "B"], ["1", "2"]],
        "code": ["x = 1"],
        "steps": {"One": ["a", "b"], "Two": []},
    }
    flat = tasks.markdown_structure("| A | B |\n|---|---|\n\nx = 1\n\n1. One\n- a\n- b\n2. Two\n")
    assert flat == {"table": [["A", "B"]], "code": [], "steps": {"One": [], "Two": []}}
