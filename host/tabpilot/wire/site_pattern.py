"""The host patterns the person allows the pilot on (`jira.acme.com`, `*.acme.com`, `intranet:8080`):
one expression for the host (a profile's `--sites`) and the extension (the popup and the scope checks),
generated into protocol.js as `SITE_PATTERN`. Written in the common subset of Python's `re` and
JavaScript's `RegExp`. IPv6 literals are not supported.
"""

from __future__ import annotations

import re

SITE_PATTERN = r"^(\*\.)?([a-z0-9_-]+\.)*[a-z0-9_-]+(:\d{1,5})?$"
# Longer patterns are refused on both sides.
SITE_MAX_CHARS = 260

_SITE_RE = re.compile(SITE_PATTERN)


def is_site_pattern(text: str) -> bool:
    """Whether `text` (already lower case, trimmed) is a host pattern."""
    return len(text) <= SITE_MAX_CHARS and _SITE_RE.match(text) is not None
