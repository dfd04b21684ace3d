"""`navigate`: load a URL in the run's tab; a bounce to a login page is `navigation_redirect`."""

from __future__ import annotations

import re
from typing import Any, ClassVar
from urllib.parse import urlsplit

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Navigate
from ...wire.replies import PageLoadedReply, decode_reply
from ..context import Context
from .base import StepBase

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


class NavigateStep(StepBase, tag="navigate"):
    """Load `url`; set `allow_redirect` when landing elsewhere than asked is expected."""

    url: str
    allow_redirect: bool = False

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 30_000

    async def run(self, ctx: Context) -> Any:
        if ctx.allowed_hosts is not None and host_of(self.url) not in ctx.allowed_hosts:
            raise TabPilotError(
                ErrorCode.DOMAIN_MISMATCH,
                f"this replay would open {host_of(self.url)!r}, but the workflow was recorded on "
                f"{', '.join(sorted(ctx.allowed_hosts))}; pass allow_domain_change: true if that is intended",
            )
        loaded = await ctx.call(Navigate(id=0, url=self.url, timeout_ms=self.timeout()), self.timeout())
        value = decode_reply(PageLoadedReply, loaded)
        final = self.url if value.url is None else value.url
        if not self.allow_redirect and is_login_redirect(self.url, final):
            raise TabPilotError(
                ErrorCode.NAVIGATION_REDIRECT,
                f"asked for {self.url} but the browser landed on {final}: probably a login page. "
                "Log in in that browser, then run the workflow again.",
                data={"redirect_url": final},
            )
        return value
