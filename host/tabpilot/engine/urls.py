"""What the engine asks of URLs: the host a domain lock compares, and whether a load bounced to a login."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_LOGIN = re.compile(r"log-?in|sign-?in|auth|sso|saml|session|/cas/|/account", re.I)


def host_of(url: str) -> str:
    """The host a domain lock compares: lower case, without a leading `www.`."""
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def is_login_redirect(requested: str, final: str) -> bool:
    """True when the page we got is not the one asked for but another host or a login-looking path."""
    want, got = urlsplit(requested), urlsplit(final)
    if not got.hostname or not want.hostname:
        return False
    if host_of(requested) != host_of(final):
        return True
    if want.path.rstrip("/") == got.path.rstrip("/"):
        return False
    return bool(_LOGIN.search(got.path)) and not _LOGIN.search(want.path)
