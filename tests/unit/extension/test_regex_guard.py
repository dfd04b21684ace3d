"""The static guard on the agent's secret patterns (lib/regex_guard.js, run under node): nested and
alternating repeats that backtrack exponentially are caught; the default patterns and plain bounded
groups pass."""

from __future__ import annotations

import json

from tests.unit.extension.test_extension_js import _run_node, needs_node  # pyright: ignore[reportPrivateUsage]


@needs_node
def test_backtracking_shapes_are_caught_and_ordinary_patterns_pass() -> None:
    out = _run_node(
        r"""
        const { backtracks } = await import('./worker/lib/regex_guard.js');
        const { REDACT_PATTERNS } = await import('./worker/protocol.js');
        const bad = ['(a+)+$', '(a|a)*', '(\\w+\\s?)*x', '((ab)*)+', '(a*)*', '(?:x+y?)+z', '(a{1,50}){1,50}',
                     '(a+?)+$', '(?<n>a+)+', '(a|ab){1,20}', '(?:(?:a|b){1,3}x?){1,50}',
                     '(?:(a+))+', '(?:(a|b))*'];
        const good = ['sk-[A-Za-z0-9]{20,}', '(?:[ -][0-9]{4}){2}', '\\bAKIA[A-Z0-9]{16}\\b', '[(a+)+]',
                      '\\(a+\\)+', 'a+b+c*', '(?:ab)+', 'x(?:-[0-9]{1,4}){1,3}',
                      '(?: |&nbsp;|-){1,3}[0-9]{4}'];
        console.log(JSON.stringify({
          bad: bad.map(backtracks), good: good.map(backtracks),
          defaults: REDACT_PATTERNS.map((p) => backtracks(p.replace(/^luhn:/, ''))),
        }));
        """
    )
    r = json.loads(out)
    assert all(r["bad"]), r
    assert not any(r["good"]) and not any(r["defaults"]), r
