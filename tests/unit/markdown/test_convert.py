"""HTML to markdown: heading levels, verbatim code with its language, GFM tables, nested lists, no
escaping noise."""

from __future__ import annotations

from tabpilot.markdown.convert import to_markdown

CODE = 'def f():\n    return "<b>" | 1\n\n\n# not a heading\n- not an item\n'


def test_headings_keep_their_levels() -> None:
    md = to_markdown("<h1>One</h1><h2>Two</h2><h3>Three</h3><h4>Four</h4>")
    assert md == "# One\n\n## Two\n\n### Three\n\n#### Four\n"


def test_code_blocks_stay_verbatim_with_their_language() -> None:
    escaped = CODE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    md = to_markdown(f'<p>x</p><pre><code class="language-python">{escaped}</code></pre>')
    assert f"```python\n{CODE}```" in md


def test_tables_stay_tables_and_the_first_row_heads_a_table_without_thead() -> None:
    md = to_markdown("<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>")
    assert md == "| a | b |\n| --- | --- |\n| 1 | 2 |\n"


def test_nested_lists_are_indented() -> None:
    md = to_markdown("<ul><li>one<ul><li>two<ul><li>three</li></ul></li></ul></li><li>four</li></ul>")
    assert md == "- one\n  - two\n    - three\n- four\n"


def test_plain_text_is_not_escaped() -> None:
    md = to_markdown("<p>snake_case and a*b and [x] # y</p>")
    assert md == "snake_case and a*b and [x] # y\n"


def test_links_and_images_keep_their_urls_and_inline_data_images_only_their_alt() -> None:
    md = to_markdown(
        '<p><a href="https://example.com/a">a link</a> <img alt="logo" src="https://example.com/l.png">'
        ' <img alt="inline" src="data:image/png;base64,AAAA"></p>'
    )
    assert "[a link](https://example.com/a)" in md
    assert "![logo](https://example.com/l.png)" in md
    assert "base64" not in md and "inline" in md


def test_empty_html_is_empty_markdown() -> None:
    assert to_markdown("") == ""
