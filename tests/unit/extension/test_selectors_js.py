"""The strict selector check of `configure add_redaction` (extension/worker/lib/selectors.js), run under node:
each selector alone, and nothing that would change its neighbours once the list is joined."""

from __future__ import annotations

import json

from tests.unit.extension.test_extension_js import _run_node, needs_node

GOOD = [".x", "a, b", "input[type=password]", 'a[title="x,y"]', ":is(.a, .b)", "div > p:nth-child(2n+1)",
        ".a\\,b", '[data-x="/*"]', "td.sensitive", "#id"]  # fmt: skip
BAD = [
    "b/*",
    "a*/",
    "a\\",
    "a,",
    ",a",
    "a,,b",
    "[x",
    "a)",
    "a{}",
    "a;b",
    "  ",
    "",
    "'open",
    "a\u0000b",
    "x" * 501,
    "<<<",
    "a@b",
    ".x!important",
    "div & p",
]


@needs_node
def test_selector_check() -> None:
    out = _run_node(
        "import { selectorProblem } from './worker/lib/selectors.js';"
        f"const all = {json.dumps(GOOD + BAD)};"
        "console.log(JSON.stringify(all.map((s) => selectorProblem(s))));"
    )
    problems = json.loads(out)
    assert problems[: len(GOOD)] == [None] * len(GOOD)
    refused = dict(zip(BAD, problems[len(GOOD) :], strict=True))
    assert all(isinstance(p, str) and p for p in refused.values()), refused
    assert "comment" in refused["b/*"]
