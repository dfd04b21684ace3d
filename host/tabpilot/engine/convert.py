"""Type conversions applied in the host to the values the page returns: number and boolean.

Numbers are read tolerantly, as people write them on pages: `1,234.50`, `$12`, `-3`, `12 pts`,
`1.234,50` (the last separator followed by 1-2 or 4+ digits, or a lone comma, is the decimal one),
`1'234`, `12 345`, `(1,234)` (accounting negative), `−3` (Unicode minus), `1.5e3`, `45%` (45, not
0.45). A lone `.` followed by exactly three digits (`1.234`) is a decimal point, as in English. The
first number in the text wins; a minus counts only right before it (after an optional currency sign),
not after a letter: `PROJ-101` is 101. Text without a digit gives null and a warning. The signs and
separators are the ones `numbers.py` defines for the page's `suggest` as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .numbers import CURRENCY_SIGNS, GROUP_SEPARATORS, char_class
from .schema import FieldSpec

Number = int | float

_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2212": "-", "\u2013": "-"})
# Grouped thousands (one separator kind), or plain digits; then an optional fraction and exponent.
_NUMBER = re.compile(
    r"""
    (?P<int>\d{1,3}(?P<sep>SEP)\d{3}(?!\d)(?:(?P=sep)\d{3}(?!\d))* | \d+)
    (?:(?P<dec>[.,])(?P<frac>\d+))?
    (?:[eE](?P<exp>[-+]?\d{1,3})(?![\d]))?
    """.replace("SEP", char_class(GROUP_SEPARATORS)),
    re.X,
)
_CURRENCY = CURRENCY_SIGNS
_TRUE_WORDS = frozenset({"true", "yes", "y", "on", "1", "checked", "enabled", "active", "✓", "✔"})
_FALSE_WORDS = frozenset({"false", "no", "n", "off", "0", "unchecked", "disabled", "inactive", "none", ""})


def parse_number(text: str) -> Number | None:
    """The first number written in `text`, or None when there is none."""
    if text.isdigit() and text.isascii():
        return int(text)  # the common case, 20x cheaper than the general path
    s = text if text.isascii() else text.translate(_SPACES)
    found = _NUMBER.search(s)
    if found is None:
        return None
    digits, sep, dec, frac, exp = found.group("int", "sep", "dec", "frac", "exp")
    if sep is not None and dec == sep:
        return None  # "1,234,5": no reading is safe
    if dec is None and sep in (".", ",") and digits.count(sep) == 1 and (sep == "." or digits[0] == "0"):
        digits, frac = digits.split(sep)  # "1.234" is 1.234 and "0,001" is 0.001, not thousands
        sep = None
    whole = digits.replace(sep, "") if sep else digits
    start = found.start()
    negative = start > 0 and ("-" in s[:start] or "(" in s[:start]) and _negative(s, start, found.end())
    if frac is None and exp is None:
        value: Number = int(whole)
    else:
        value = float(f"{whole}.{frac or 0}e{exp or 0}")
    return -value if negative else value


def _negative(s: str, start: int, end: int) -> bool:
    before = s[:start].rstrip(" " + _CURRENCY)
    after = s[end:].lstrip(" " + _CURRENCY + "%")
    if before.endswith("(") and after.startswith(")"):
        return True
    if not before.endswith("-"):
        return False
    # A hyphen glued to a word is part of a name ("PROJ-101"), not a sign.
    prev = before[:-1]
    return not prev or not prev[-1].isalnum()


def parse_boolean(value: str | None, take: str) -> bool:
    """Truthiness as a page shows it: an absent element or attribute is false; a present attribute is
    true unless its value says false; text is true unless empty or a false word (no, off, 0, ...)."""
    if value is None:
        return False
    word = value.strip().lower()
    if take in ("attr", "url"):
        return word not in _FALSE_WORDS - {""}
    if word in _TRUE_WORDS:
        return True
    return word not in _FALSE_WORDS


Converter = Callable[[Any], Any]


class Conversions:
    """Apply each field's conversion to rows of values, counting what did not convert."""

    def __init__(self, fields: Sequence[FieldSpec]) -> None:
        self.fields = list(fields)
        self.names = [f.name for f in self.fields]
        self.failed: dict[str, tuple[int, str]] = {}  # field -> (count, first example)
        self._steps: list[tuple[int, Converter]] = [
            (i, conv) for i, f in enumerate(self.fields) if (conv := self._converter(f)) is not None
        ]

    def _converter(self, spec: FieldSpec) -> Converter | None:
        if spec.convert == "number":

            def one_number(v: Any) -> Any:
                if v is None:
                    return None
                n = parse_number(str(v))
                if n is None:
                    self._fail(spec.name, str(v))
                return n

            return (lambda v: None if v is None else [one_number(x) for x in v]) if spec.all else one_number
        if spec.convert == "boolean":
            take = spec.take
            if spec.all:
                return lambda v: [] if v is None else [parse_boolean(x, take) for x in v]
            return lambda v: parse_boolean(v, take)
        return None

    def _fail(self, name: str, example: str) -> None:
        count, first = self.failed.get(name, (0, example))
        self.failed[name] = (count + 1, first)

    def rows(self, raw_rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        """Rows as objects keyed by field name, with conversions applied."""
        names = self.names
        n = len(names)
        steps = self._steps
        if not steps:
            return [dict(zip(names, r, strict=True)) if len(r) == n else self._padded(r) for r in raw_rows]
        out: list[dict[str, Any]] = []
        for raw in raw_rows:
            values = list(raw) if len(raw) == n else list(self._padded(raw).values())
            for i, conv in steps:
                values[i] = conv(values[i])
            out.append(dict(zip(names, values, strict=True)))
        return out

    def _padded(self, raw: Sequence[Any]) -> dict[str, Any]:
        values = (list(raw) + [None] * len(self.names))[: len(self.names)]
        return dict(zip(self.names, values, strict=True))

    def warnings(self) -> list[dict[str, str]]:
        """One warning per field with values that did not convert."""
        return [
            {"field": name, "message": f"{count} value(s) are not numbers (null), e.g. {first[:40]!r}"}
            for name, (count, first) in self.failed.items()
        ]
