"""`navigate`: load a URL in the run's tab; a bounce to a login page is `navigation_redirect`."""

from __future__ import annotations

from typing import Any, ClassVar

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import Navigate
from ...wire.replies import PageLoadedReply, decode_reply
from ..context import Context
from ..urls import host_of, is_login_redirect
from .base import StepBase


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
