"""The page's cleaned main-content HTML as GitHub-flavoured markdown, by html-to-markdown (Rust core).

The page has already left out navigation, hidden parts and secrets (extension/page/main_content.js);
this only converts. Settings chosen for an agent that reads the result: ATX headings keep their
levels, fenced code blocks keep their text and `language-x` class, tables are GFM tables without
column padding, nested lists indent by two spaces, and plain text is not backslash-escaped, since
escapes make the markdown bigger than its source for no reader's benefit.
"""

from __future__ import annotations

from html_to_markdown import ConversionOptions, convert

from ..wire.errors import ErrorCode, TabPilotError

_OPTIONS = ConversionOptions(
    heading_style="atx",
    bullets="-",
    list_indent_width=2,
    code_block_style="backticks",
    compact_tables=True,
    autolinks=False,
    escape_asterisks=False,
    escape_underscores=False,
    escape_misc=False,
    extract_metadata=False,
    inline_data_media="alt_text_only",
    hidden_content="drop",
    whitespace_mode="normalized",
)


def to_markdown(html: str) -> str:
    """GFM markdown of `html` (an HTML fragment or document)."""
    try:
        result = convert(html, _OPTIONS)
    except Exception as err:  # the library's own error types carry the reason; none is the agent's to fix
        raise TabPilotError(
            ErrorCode.INTERNAL_ERROR, f"converting the page to markdown failed: {err}"
        ) from err
    text = (result.content or "").strip("\n")
    return text + "\n" if text else ""
