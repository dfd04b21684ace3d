"""Names that say their value is a secret, for the host (a recorded workflow's params are not stored)
and the extension (query values in the request URLs telemetry keeps are replaced): one list, generated
into protocol.js as `SECRET_QUERY_NAME`.

A name is secret-looking when it contains one of the words, in any case (`user_password`, `X-Auth`).
"""

from __future__ import annotations

import re

SECRET_NAME_WORDS: tuple[str, ...] = (
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "otp",
    "pin",
    "cookie",
    "session",
    "auth",
)
# Only in URLs: an OAuth authorization `code` and a request signature `sig` ride in query strings,
# while a workflow param called `code` is usually a postal or product code its replay needs.
URL_ONLY_WORDS: tuple[str, ...] = ("code", "sig")

SECRET_NAME = "|".join(SECRET_NAME_WORDS)
SECRET_QUERY_NAME = "|".join(SECRET_NAME_WORDS + URL_ONLY_WORDS)

_SECRET_NAME = re.compile(SECRET_NAME, re.I)


def secret_name(name: str) -> bool:
    """Whether a param's name says its value is a secret."""
    return _SECRET_NAME.search(name) is not None
