"""Messages around the commands: the handshake, results (whole or in chunks), errors, events and
progress."""

from __future__ import annotations

from typing import Any

import msgspec

from .base import NULL, Message


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


class Welcome(Message, tag="welcome", omit_defaults=False):
    """The host's answer to Hello. `accepted` is false on a protocol mismatch."""

    protocol: int
    host_version: str
    accepted: bool = True
    message: str = ""


class Result(Message, tag="result"):
    """Success answer to a command. `value_json` lets a sender pass JSON text it already has; `ms`
    is the extension's own time for the command (receive to reply), for the trace."""

    id: int
    value: msgspec.Raw = NULL
    value_json: str | None = None
    ms: float | None = None


class ResultChunk(Message, tag="result_chunk"):
    """One piece of the JSON text of a large result; the piece with `final` completes it."""

    id: int
    seq: int
    data: str
    final: bool = False
    ms: float | None = None  # on the final piece: as Result.ms


class Chunk(Message, tag="chunk"):
    """One base64 piece of a host->extension message too big for one native frame."""

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
    ms: float | None = None  # as Result.ms


class Event(Message, tag="event"):
    """Unsolicited news from the extension, e.g. the pilot toggle changed."""

    name: str
    data: Any = None


class Progress(Message, tag="progress"):
    """Host -> bridge: how far a long command (id) has come; the Result or Error still ends it."""

    id: int
    progress: float
    total: float | None = None
    message: str = ""
    correlation_id: str | None = None  # the scrape's, so a caller whose host dies mid-run can find its rows


def result_value(result: Result) -> msgspec.Raw:
    """The JSON value of a Result, whichever field carried it."""
    if result.value_json is not None:
        return msgspec.Raw(result.value_json.encode())
    return result.value
