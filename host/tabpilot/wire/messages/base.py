"""The base of every wire message, the protocol version and the size limits of frames and results.

Evolution rules: new fields get defaults, fields are never retyped, unknown fields from a newer peer
are skipped (the extension and the host update separately). Bump PROTOCOL_VERSION only for a change
an older peer would misread.
"""

from __future__ import annotations

import msgspec

PROTOCOL_VERSION = 1

# Chrome kills a native host that writes one message over 1 MiB; stay well below it per frame.
HOST_TO_CHROME_MAX = 1024 * 1024
# Raw bytes per host->extension chunk: base64 makes 4/3 of it, plus a small envelope.
HOST_CHUNK_RAW = 512 * 1024
# Characters of JSON text per extension->host result chunk (measured fastest around 256 KB).
EXT_CHUNK_CHARS = 256 * 1024
# Chrome refuses an extension->host message over 64 MiB.
CHROME_TO_HOST_MAX = 64 * 1024 * 1024
# Upper bound on one assembled result held in the host's memory.
MAX_RESULT_BYTES = 256 * 1024 * 1024
# Upper bound on one frame on the local socket (a result plus its envelope).
SOCKET_MAX_FRAME = MAX_RESULT_BYTES + 1024 * 1024

NULL = msgspec.Raw(b"null")


class Message(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """Base of every wire message; `type` carries the tag."""


class Command(Message):
    """A request with an id that a Result or an Error answers (the bridge sends it to the host, the
    host serves it or forwards it to the extension)."""

    id: int


def tag_of(cls: type[Message]) -> str:
    """The `type` string of a message class."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag
