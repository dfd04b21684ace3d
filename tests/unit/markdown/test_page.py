"""One chunk of a page's markdown as the agent gets it: chunk k of n, the next call, notes, errors."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.markdown import page
from tabpilot.markdown.page import markdown_chunk
from tabpilot.wire.errors import ErrorCode, TabPilotError

ROWS = "".join(f"<tr><td>n{i}</td><td>value {i}</td></tr>" for i in range(80))
HTML = f"<h1>Doc</h1><p>Intro.</p><table><tr><th>name</th><th>value</th></tr>{ROWS}</table>"


def content(html: str = HTML, **extra: Any) -> dict[str, Any]:
    return {"html": html, "title": "Doc", "url": "https://example.test/doc", "tab_id": 7, **extra}


def test_the_first_chunk_says_k_of_n_and_gives_the_next_call() -> None:
    out = markdown_chunk(content(), chunk=1, max_chars=400, css_selector="main", tab_id=None)
    assert out["chunk"] == 1 and out["chunks"] > 3
    assert out["markdown"].startswith("# Doc\n\nIntro.\n\n| name | value |\n| --- | --- |\n| n0 | value 0 |")
    assert out["next"] == {
        "what": "page",
        "format": "markdown",
        "chunk": 2,
        "css_selector": "main",
        "max_chars": 400,
    }
    assert out["url"] == "https://example.test/doc" and out["title"] == "Doc" and out["tab_id"] == 7
    assert out["note"] == "the table goes on in chunk 2"
    assert "oversize" not in out and "truncated" not in out


def test_a_later_chunk_repeats_the_table_header_and_says_so() -> None:
    out = markdown_chunk(content(), chunk=2, max_chars=400, css_selector=None, tab_id=3)
    assert out["markdown"].startswith("| name | value |\n| --- | --- |\n| n")
    assert out["note"] == (
        "continues a table from chunk 1; its header row is repeated; the table goes on in chunk 3"
    )
    assert out["next"] == {"what": "page", "format": "markdown", "chunk": 3, "max_chars": 400, "tab_id": 3}


def test_the_last_chunk_has_no_next_and_the_default_budget_is_left_out() -> None:
    first = markdown_chunk(content(), chunk=1, max_chars=400, css_selector=None, tab_id=None)
    last = markdown_chunk(content(), chunk=first["chunks"], max_chars=400, css_selector=None, tab_id=None)
    assert "next" not in last and last["markdown"].rstrip().endswith("| n79 | value 79 |")
    whole = markdown_chunk(content(), chunk=1, max_chars=page.DEFAULT_MAX_CHARS, css_selector=None, tab_id=1)
    assert whole["chunks"] == 1 and "next" not in whole


@pytest.mark.parametrize("chunk", [0, 99])
def test_a_chunk_that_does_not_exist_is_invalid_params(chunk: int) -> None:
    with pytest.raises(TabPilotError) as err:
        markdown_chunk(content(), chunk=chunk, max_chars=400, css_selector=None, tab_id=None)
    assert err.value.code == ErrorCode.INVALID_PARAMS
    assert err.value.data["chunks"] > 3


def test_an_empty_page_is_one_empty_chunk_and_truncation_is_reported() -> None:
    out = markdown_chunk(content("", truncated=True), chunk=1, max_chars=400, css_selector=None, tab_id=None)
    assert out["chunks"] == 1 and out["markdown"] == "" and out["truncated"] is True


def test_walking_an_unchanged_page_converts_it_once() -> None:
    page._chunks.cache_clear()
    html = HTML + "<p>walked</p>"
    for k in (1, 2, 3):
        markdown_chunk(content(html), chunk=k, max_chars=400, css_selector=None, tab_id=None)
    info = page._chunks.cache_info()
    assert info.misses == 1 and info.hits == 2
    markdown_chunk(content(html + "<p>changed</p>"), chunk=1, max_chars=400, css_selector=None, tab_id=None)
    assert page._chunks.cache_info().misses == 2


def test_a_code_block_longer_than_a_chunk_is_fenced_in_each_part_and_says_so() -> None:
    code = "".join(f"line_{i} = {i}\n" for i in range(60))
    html = f'<pre><code class="language-python">{code}</code></pre>'
    first = markdown_chunk(content(html), chunk=1, max_chars=300, css_selector=None, tab_id=None)
    second = markdown_chunk(content(html), chunk=2, max_chars=300, css_selector=None, tab_id=None)
    assert first["markdown"].startswith("```python\nline_0 = 0\n") and first["markdown"].endswith("\n```\n")
    assert first["note"] == "the code block goes on in chunk 2"
    assert second["markdown"].startswith("```python\nline_")
    assert second["note"].startswith("continues a code block from chunk 1; the fence is reopened")
