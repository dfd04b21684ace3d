"""The base of every reply, and its decoding: the extension's answer to a command, as a typed struct.

Replies follow the messages' evolution rules: every field has a default (an older extension may not
send it) and unknown fields are skipped (a newer one may send more), so a speed or detail field is one
line here. A reply that does not fit its struct is `malformed_reply`, never a half-read dict.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from ..echo import clip
from ..errors import ErrorCode, TabPilotError


class Reply(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Base of every reply to an extension command."""


class TabReply(Reply):
    """A reply that says which tab answered and the URL it shows."""

    tab_id: int | None = None
    url: str | None = None


R = TypeVar("R", bound=Reply)


def decode_reply(cls: type[R], value: Any) -> R:
    """The extension's decoded JSON answer as `cls`; an answer of another shape is malformed_reply."""
    try:
        return msgspec.convert(value, cls)
    except msgspec.ValidationError as exc:
        raise TabPilotError(
            ErrorCode.MALFORMED_REPLY,
            f"the extension answered a {cls.__name__} that does not fit: {clip(str(exc))}",
        ) from None
