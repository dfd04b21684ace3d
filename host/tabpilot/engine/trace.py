"""A per-command trace of the engine's runs, for finding where the time goes.

`TABPILOT_TRACE=/path/file.jsonl` in the environment of the process running the engine (the native
host: Chrome passes the browser's environment on) appends one JSON line per browser command a run
sends: the run, the command, when it started (ms since the run did), how long it took, and the
extension's own time for it (worker receive → reply) when the extension says, so that host and
transport time can be told from page time. Off by default: `current()` is None and nothing is timed.

Nothing secret goes in: no field values, scripts, typed text or selectors; a URL loses its user
info and fragment, and the values of its secret-looking query parameters (wire/secret_names.py), and
is then scrubbed as every URL leaving the host is (urlscrub.py).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import threading
from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..wire.secret_names import SECRET_QUERY_NAME
from . import urlscrub

ENV_TRACE = "TABPILOT_TRACE"

log = logging.getLogger("tabpilot.trace")

_SECRET_PARAM = re.compile(SECRET_QUERY_NAME, re.I)
# The extension's own time for the command the current task just had answered (see note_extension_ms).
_extension_ms: ContextVar[float | None] = ContextVar("tabpilot_extension_ms", default=None)


def note_extension_ms(ms: float | None) -> None:
    """A Browser implementation reports the extension's own time for the command it just answered.

    A ContextVar, so that runs and parallel fetches in their own tasks never read each other's."""
    _extension_ms.set(ms)


def take_extension_ms() -> float | None:
    """The extension's time for the last command answered in this task, once (None: not reported)."""
    ms = _extension_ms.get()
    if ms is not None:
        _extension_ms.set(None)
    return ms


def safe_url(url: str) -> str:
    """`url` fit for the trace: no user info, no fragment, secret-looking query values replaced."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "[unparsable url]"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "[REDACTED]" if _SECRET_PARAM.search(k) else v) for k, v in pairs])
    # Then as every URL that leaves the host is (secret-shaped runs in the path or a value too).
    return urlscrub.scrub_url(urlunsplit((parts.scheme, netloc, parts.path, query, "")))


class Trace:
    """An append-only JSON-lines file (0600), one line per traced command; lines from parallel runs
    are whole lines (one write each, O_APPEND)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._runs = 0
        self._broken = False

    def new_run(self) -> int:
        """A number for a run, unique in this process."""
        with self._lock:
            self._runs += 1
            return self._runs

    def command(self, **fields: Any) -> None:
        """Append one line; a trace that cannot be written is logged once and then left alone."""
        line = (json.dumps(fields, separators=(",", ":")) + "\n").encode()
        with self._lock:
            if self._broken:
                return
            try:
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                os.write(self._fd, line)
            except OSError as exc:
                log.warning("trace %s cannot be written (%s): tracing stops", self.path, exc.strerror)
                self._broken = True


@functools.cache
def _from_env(path: str) -> Trace:
    return Trace(path)


def current() -> Trace | None:
    """The trace the environment asks for, or None (the default: tracing off)."""
    path = os.environ.get(ENV_TRACE)
    if not path:
        return None
    return _from_env(path)
