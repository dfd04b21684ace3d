"""The agent's input quoted back in an error: cut short, printable, and with the nearest known name.

A 10 MB selector must not come back as a 20 MB error, a lone surrogate must not make the error itself
unencodable, and a misspelt field is easier to fix when the error says what was probably meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

ECHO_CHARS = 200  # of an input quoted in an error
MESSAGE_CHARS = 1_500  # of a whole error message, whatever it quotes
_MATCH_CHARS = 64  # difflib is quadratic: compare only the start of a long name


def clip(text: str, limit: int = ECHO_CHARS) -> str:
    """`text` cut to `limit` characters (saying how many were left out), lone surrogates escaped."""
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text) - limit:,} more characters)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def show(text: str) -> str:
    """An input as quoted in a message: clipped, in double quotes."""
    return '"' + clip(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to `name` (a typo's likely meaning), or None when none is close."""
    names = list(known)
    found = difflib.get_close_matches(name[:_MATCH_CHARS], names, n=1, cutoff=0.6)
    if found:
        return found[0]
    starting = [k for k in names if name and k.startswith(name)]  # "next" -> "next_selector"
    return starting[0] if len(starting) == 1 else None


def unknown_field(name: str, known: Iterable[str], where: str = "") -> str:
    """`"scop" is not a field of observe what=page; did you mean "scope"? (known: ...)`."""
    names = sorted(set(known))
    guess = nearest(name, names)
    at = f" of {where}" if where else ""
    hint = f'; did you mean "{guess}"?' if guess else ""
    return f"{show(name)} is not a field{at}{hint} (known: {', '.join(names)})"
