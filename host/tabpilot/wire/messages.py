"""Typed wire messages: one tagged union per direction, on both the native port and the local socket.

Evolution rules: new fields get defaults, fields are never retyped, unknown fields from a newer peer
are skipped (the extension and the host update separately). Bump PROTOCOL_VERSION only for a change
an older peer would misread.
"""

from __future__ import annotations

from typing import Any

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


# --- Commands: the bridge sends them to the host, the host forwards them to the extension. ---


class Command(Message):
    """A request with an id that a Result or an Error answers."""

    id: int


class Ping(Command, tag="ping"):
    """Round trip to the extension's service worker."""


class GetStatus(Command, tag="status"):
    """Extension state: pilot toggle, versions, instance."""


class ListTabs(Command, tag="tabs"):
    """Open tabs with id, url, title, active."""


class Navigate(Command, tag="navigate"):
    """Load a URL in a tab and answer with the final URL and title once loaded."""

    url: str
    tab_id: int | None = None
    timeout_ms: int = 30_000


class ExecuteJs(Command, tag="execute_js"):
    """Run the agent's JavaScript in the page: an expression or a function body."""

    script: str
    tab_id: int | None = None
    timeout_ms: int = 5_000


class Cancel(Command, tag="cancel"):
    """Stop the command whose id is `target`, if it is still running."""

    target: int


class HostInfo(Command, tag="host_info"):
    """Bridge -> host only: who is this host and which browser it serves."""


# --- Extension -> host ---


class Hello(Message, tag="hello"):
    """First message of the extension on a new native port."""

    protocol: int
    extension_version: str
    instance_id: str
    browser_name: str = ""
    browser_version: str = ""
    label: str = ""
    profile: str = ""
    pilot: bool = False


class Result(Message, tag="result"):
    """Success answer to a command. `value_json` lets a sender pass JSON text it already has."""

    id: int
    value: msgspec.Raw = NULL
    value_json: str | None = None


class ResultChunk(Message, tag="result_chunk"):
    """One piece of the JSON text of a large result; the piece with `final` completes it."""

    id: int
    seq: int
    data: str
    final: bool = False


class Error(Message, tag="error"):
    """Failure answer to a command (or, with no id, to a message the sender could not read)."""

    code: str
    message: str
    id: int | None = None
    retryable: bool = False
    data: Any = None


class Event(Message, tag="event"):
    """Unsolicited news from the extension, e.g. the pilot toggle changed."""

    name: str
    data: Any = None


# --- Host -> extension only ---


class Welcome(Message, tag="welcome", omit_defaults=False):
    """The host's answer to Hello. `accepted` is false on a protocol mismatch."""

    protocol: int
    host_version: str
    accepted: bool = True
    message: str = ""


class Chunk(Message, tag="chunk"):
    """One base64 piece of a host->extension message too big for one native frame."""

    id: int
    seq: int
    data: str
    final: bool = False


class BrowserInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What a host tells a bridge about itself and the browser it serves (the HostInfo result)."""

    instance_id: str
    label: str = ""
    profile: str = ""
    browser_name: str = ""
    browser_version: str = ""
    extension_version: str = ""
    protocol: int = 0
    protocol_ok: bool = True
    host_version: str = ""
    pilot: bool = False
    pid: int = 0
    connected_at: float = 0.0


ExtensionCommand = Ping | GetStatus | ListTabs | Navigate | ExecuteJs | Cancel
ToExtension = Welcome | Chunk | ExtensionCommand
FromExtension = Hello | Result | ResultChunk | Error | Event
ToHost = HostInfo | ExtensionCommand
FromHost = Result | Error | Event

EXTENSION_COMMANDS: tuple[type[Command], ...] = (Ping, GetStatus, ListTabs, Navigate, ExecuteJs, Cancel)


class _IdOnly(msgspec.Struct):
    id: int | None = None
    type: str | None = None


encoder = msgspec.json.Encoder()
to_extension_decoder = msgspec.json.Decoder(ToExtension)
from_extension_decoder = msgspec.json.Decoder(FromExtension)
to_host_decoder = msgspec.json.Decoder(ToHost)
from_host_decoder = msgspec.json.Decoder(FromHost)
_id_decoder = msgspec.json.Decoder(_IdOnly)


def peek(payload: bytes) -> tuple[int | None, str | None]:
    """Best-effort id and type of a message that did not decode, so an error can still answer it."""
    try:
        found = _id_decoder.decode(payload)
    except msgspec.DecodeError:
        return None, None
    return found.id, found.type


def result_value(result: Result) -> msgspec.Raw:
    """The JSON value of a Result, whichever field carried it."""
    if result.value_json is not None:
        return msgspec.Raw(result.value_json.encode())
    return result.value


def tag_of(cls: type[Message]) -> str:
    """The `type` string of a message class."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag
