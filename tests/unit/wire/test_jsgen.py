"""The extension's protocol.js is generated from the Python wire definitions and must not drift."""

from __future__ import annotations

from tabpilot import paths
from tabpilot.wire import jsgen
from tabpilot.wire.errors import ErrorCode


def test_protocol_js_is_up_to_date() -> None:
    current = (paths.extension_dir() / jsgen.TARGET).read_text()
    assert current == jsgen.render(), "run: python -m tabpilot.wire.jsgen"


def test_error_codes_are_stable_snake_case() -> None:
    for code in ErrorCode:
        assert code.value == code.name.lower()
