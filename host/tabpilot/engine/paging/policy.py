"""Fetch or render: the one rule paging (links.py) and follow (engine/detail.py) share.

Fetching a page (the page agent parses its HTML: no tab, no rendering) is an order of magnitude
cheaper than loading it, and reads the same only when the server sends what the rendered page shows.
So a walk or a follow fetches only once one page, read both ways, reads the same: the same rows, no
redirect on the way, the same next link, and whatever the read waits for present in the served HTML.
Anything else means the page's scripts draw what is read: it is rendered. A detail page whose served
HTML holds nothing that runs or moves (no script element or handler attribute, no frame, object or
embed, no noscript, no declarative shadow root, no refresh) and whose text the browser decodes as the
fetch did (served as UTF-8, or ASCII: the page agent's `inert`) is that HTML rendered too, so follow
takes its fetched read without rendering it (engine/detail.py).

That check holds for the page it was made on; what a later page's scripts do to that page's own
content it cannot tell (a column marked sensitive by a script, a field turned into a password, where
page 1 had none). So the rule holds per page, in the page agent (page/fetch.js): every fetched page's
scripts (inline ones, handler attributes, and every script file it or the rendered page loads, each
read once) are searched for what a script must name to make a secret: a class or attribute of the
redaction list (or its `dataset` name), or a password in a string. A page whose scripts name one, or
whose script files cannot be read, is not read fetched (`secret_unmaskable`): that page, and the ones
after it, are rendered. A same-origin link that redirects to another origin is never read fetched:
the run ends with `navigation_redirect`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...wire.errors import ErrorCode, TabPilotError

UNFETCHED = "could not be fetched"
# A fetched page refused with one of these is read rendered instead: its scripts could make secrets
# its HTML does not mark, or it could not be fetched at all.
RENDER_INSTEAD = frozenset({ErrorCode.SECRET_UNMASKABLE, ErrorCode.NAVIGATION_FAILED})


@dataclass(frozen=True)
class Copy:
    """One way a page read: its rows; where it landed and its next link's URL (None: not compared);
    `ready`: the root and the element the read waits for were there."""

    rows: list[list[Any]] = field(default_factory=list[list[Any]])
    url: str | None = None
    next_url: str | None = None
    ready: bool = True


def bare(url: str) -> str:
    """`url` without its fragment."""
    return url.split("#", 1)[0]


def mismatch(fetched: Copy | BaseException, rendered: Copy, what: str) -> str | None:
    """Why the fetched copy of `what` cannot stand for the rendered one (then render), or None (fetch).
    `fetched` is the failure when fetching failed (an extension without fetch_extract, a page that
    refuses it...)."""
    if isinstance(fetched, BaseException):
        code = fetched.code if isinstance(fetched, TabPilotError) else "error"
        return f"{what} {UNFETCHED} ({code})"
    if rendered.url is not None and bare(fetched.url or "") != bare(rendered.url):
        return f"fetching {what} was redirected"
    if fetched.rows != rendered.rows:
        return f"{what} fetched reads other rows than {what} rendered (its scripts draw them)"
    if not fetched.ready:
        return f"{what} fetched lacks what the read waits for (its scripts draw it)"
    if fetched.next_url != rendered.next_url:
        return f"{what} fetched has another next link than {what} rendered"
    return None
