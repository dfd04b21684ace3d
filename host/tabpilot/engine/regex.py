"""The agent's regular expressions (output_schema `pattern`, `patternProperties`) run on RE2.

Python's `re` backtracks: `^(a+)+$` against 28 characters takes seconds, and the host's one event
loop serves every client. RE2 matches in time linear in the text whatever the pattern; it has no
backreferences or lookaround, so a schema that needs them is refused up front with the reason.
"""

from __future__ import annotations

import functools
from typing import Any

import re2 as _untyped  # pyright: ignore[reportMissingTypeStubs]

re2: Any = _untyped  # the package ships no type information
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a bad pattern is the agent's error, reported to it, not host log noise


class PatternError(ValueError):
    """A pattern RE2 cannot run (bad syntax, or a backtracking-only feature)."""


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """The RE2 program for `pattern`; PatternError says why there is none."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        first: Any = exc.args[0] if exc.args else exc
        reason = first.decode(errors="replace") if isinstance(first, bytes) else str(first)
        raise PatternError(
            f"{reason} (patterns run on RE2, in linear time: no backreferences or lookaround)"
        ) from None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (as JSON Schema's `pattern` asks)."""
    return compiled(pattern).search(text) is not None
