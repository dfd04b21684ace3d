"""An error quotes at most ECHO_CHARS characters of any input, whoever wrote its message: the bridge, the
host, or the browser (a DOMException quotes a selector whole)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.echo import ECHO_CHARS, MESSAGE_CHARS
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.bridge.test_tools import FakePool, call

pytestmark = pytest.mark.anyio

LONG = 5_000


def longest_run(text: str, char: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def test_a_selector_quoted_by_the_browser_is_cut_and_the_sentence_kept() -> None:
    selector = "q" * LONG
    message = f"Failed to execute 'querySelectorAll' on 'Document': '{selector}' is not a valid selector."
    exc = TabPilotError(ErrorCode.INVALID_SELECTOR, message)
    assert longest_run(exc.message, "q") == ECHO_CHARS
    assert exc.message.endswith("' is not a valid selector.") and "4,800 more characters" in exc.message


@pytest.mark.parametrize(
    "message",
    [
        "no element matches " + "div > " * 1_000,  # spaces inside, but in double quotes below
        'no element matches "' + "div > " * 1_000 + '"',
        "cannot open `" + "a b " * 2_000 + "`",
        "bad URL https://example.com/" + "z" * LONG,
        "cannot read " + repr("/tmp/" + "p" * LONG) + " (no such file)",
        "cut short '" + "x y " * 40_000,  # an unclosed quote, longer than is ever scanned
    ],
)
def test_every_quoted_span_or_unbroken_run_is_cut(message: str) -> None:
    exc = TabPilotError(ErrorCode.INVALID_PARAMS, message)
    assert len(exc.message) <= MESSAGE_CHARS + 40
    spans = re.findall(r"""'[^']*'|"[^"]*"|`[^`]*`|\S+""", exc.message)
    # Each quoted input is cut to ECHO_CHARS, plus the note that says how much was left out.
    assert max(len(s) for s in spans) <= ECHO_CHARS + len("''… (100,000 more characters)")


def test_prose_and_short_quotes_are_left_as_they_are() -> None:
    prose = "the page doesn't answer; " + "it waited and waited, " * 15 + "so it isn't 'done' yet"
    assert TabPilotError(ErrorCode.TIMEOUT, prose).message == prose


def test_strings_in_the_data_are_held_to_the_same_rule() -> None:
    data = {"selector": "s" * LONG, "nested": [{"url": "u" * LONG}], "n": 3}
    out = TabPilotError(ErrorCode.INVALID_SELECTOR, "bad", data=data).to_dict()["data"]
    assert longest_run(json.dumps(out), "s") == ECHO_CHARS
    assert longest_run(json.dumps(out), "u") == ECHO_CHARS and out["n"] == 3


def _quoting(code: ErrorCode, field: str) -> Any:
    """An answer from the browser quoting the command's `field` whole, as Chrome's messages do."""

    def answer(command: m.Command) -> TabPilotError:
        quoted = getattr(command, field)
        return TabPilotError(
            code, f"Failed to execute 'querySelector' on 'Document': '{quoted}' is not valid."
        )

    return answer


@pytest.mark.parametrize(
    ("action", "field", "value", "code"),
    [
        ("click", "selector", "q" * LONG, ErrorCode.INVALID_SELECTOR),
        ("hover", "selector", "q" * LONG, ErrorCode.INVALID_SELECTOR),
        ("navigate", "url", "https://e.com/" + "q" * LONG, ErrorCode.NAVIGATION_FAILED),
        ("execute_js", "script", "q" * LONG, ErrorCode.SCRIPT_ERROR),
    ],
)
async def test_tools_quote_at_most_echo_chars_of_their_input(
    action: str, field: str, value: str, code: ErrorCode
) -> None:
    pool = FakePool(answers={action: _quoting(code, field)})
    result = await call(pool, "interact", action=action, **{field: value})
    assert result.is_error
    structured: dict[str, Any] = result.structured_content or {}
    assert structured["error"] == code
    text = json.dumps([block.model_dump() for block in result.content]) + json.dumps(structured)
    assert 0 < longest_run(text, "q") <= ECHO_CHARS


async def test_an_unknown_field_named_by_a_long_string_is_quoted_short() -> None:
    result = await call(FakePool(), "interact", action="click", selector="a", **{"z" * LONG: 1})
    structured: dict[str, Any] = result.structured_content or {}
    assert result.is_error and structured["error"] == ErrorCode.INVALID_PARAMS
    assert 0 < longest_run(json.dumps(structured), "z") <= ECHO_CHARS
