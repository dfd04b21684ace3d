"""Secret-shaped text masked in every channel: the one default list (the extension gets it generated
into protocol.js, the popup lets the user edit it) and the masking the host uses on text it holds.

Each entry is a regular expression written in the common subset of Python's `re` and JavaScript's
`RegExp` (ASCII classes, no look-behind, no flags); an entry starting with ``luhn:`` counts only when
the digits of the match pass the Luhn check (card numbers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

REDACTED = "[REDACTED]"
LUHN = "luhn:"

# Between a card's groups: up to three spaces of any kind (no-break and thin spaces, zero-width ones),
# dashes, or a no-break space as HTML writes it (an element's html).
CARD_SEPARATOR = r"(?:[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000-]|&nbsp;|&#160;|&#[xX][aA]0;){1,3}"

DEFAULT_PATTERNS: tuple[str, ...] = (
    # Payment cards: 13-19 digits, bare or in groups of four (Amex 4-6-5); issuers start with 2-6,
    # which keeps ISBNs (978/979), timestamps and most ids out before the Luhn check.
    LUHN
    + r"\b(?:[2-6][0-9]{12,18}|[2-6][0-9]{3}(?:"
    + CARD_SEPARATOR
    + r"[0-9]{4}){2}"
    + CARD_SEPARATOR
    + r"[0-9]{1,7}|3[47][0-9]{2}"
    + CARD_SEPARATOR
    + r"[0-9]{6}"
    + CARD_SEPARATOR
    + r"[0-9]{5})\b",
    # AWS access key ids.
    r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
    # PEM private keys, whole or cut off after the header.
    r"-----BEGIN[A-Z ]* PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z ]* PRIVATE KEY-----|[A-Za-z0-9+/=\s]*)",
    # JSON Web Tokens: base64url header and payload, both JSON objects ("eyJ"), and a signature.
    r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    # GitHub tokens.
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    # Slack tokens.
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    # Stripe live secret and restricted keys.
    r"\b[rs]k_live_[A-Za-z0-9]{16,}",
    # Anthropic, then OpenAI-style keys (sk-..., sk-proj-...).
    r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}",
)


def luhn_ok(digits: str) -> bool:
    """Whether the digit string passes the Luhn check."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def match_digits(match: str) -> str:
    """The digits a match holds, its HTML character references (`&#160;`) left out."""
    return "".join(c for c in re.sub(r"&#?[0-9A-Za-z]+;", "", match) if c in "0123456789")


@lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], bool], ...]:
    out: list[tuple[re.Pattern[str], bool]] = []
    for entry in patterns:
        check = entry.startswith(LUHN)
        try:
            out.append((re.compile(entry[len(LUHN) :] if check else entry), check))
        except re.error:
            continue  # the extension skips what it cannot compile; so does the host
    return tuple(out)


def mask(text: str, patterns: Iterable[str] = DEFAULT_PATTERNS) -> str:
    """`text` with every secret-shaped run replaced by [REDACTED]."""
    out = text
    for regex, check in _compiled(tuple(patterns)):

        def replace(m: re.Match[str], check: bool = check) -> str:
            digits = match_digits(m.group(0))
            return REDACTED if not check or luhn_ok(digits) else m.group(0)

        out = regex.sub(replace, out)
    return out
