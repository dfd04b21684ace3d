"""Commands that run the agent's own JavaScript in a page."""

from __future__ import annotations

from ..timer import TimeoutMs
from .base import Command


class ExecuteJs(Command, tag="execute_js"):
    """Run the agent's JavaScript in the page: an expression or a function body."""

    script: str
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 5_000


class ExtractScript(Command, tag="extract_script"):
    """Run the agent's extractor: a function body of `root` (the `css_selector` match, else document).

    Result: `{"tab_id", "result": the returned JSON, "redacted": secrets replaced by "[REDACTED]",
    "url"}`. Known secrets (password values, text and values of elements matching the redaction
    selectors) are scrubbed in the page. Errors: script_error (`data`: message, stack, line, column
    within the script; also for an undefined or null result), element_not_found / invalid_selector
    (css_selector), timeout (`data.recovered`), result_too_large, invalid_params.
    """

    script: str
    css_selector: str | None = None
    tab_id: int | None = None
    timeout_ms: TimeoutMs = 10_000
