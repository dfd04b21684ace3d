"""The log files of the host and the bridge: owner-only (0600 files in a 0700 directory), and no data.

A log line says what happened (a command's type, an error's code), never an argument's value or
page content: either may be a secret. Our own call sites keep to that; for the rest, lines from
other libraries' loggers keep only where they were logged, and tracebacks keep their frames and the
exception's type but not its message (a message may quote a value).
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from . import paths

_OURS = "tabpilot"
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


class _PrivateFile(logging.handlers.RotatingFileHandler):
    """A rotating log file created 0600 (the umask is not trusted), and made 0600 if it was not."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.fchmod(fd, 0o600)
        return io.TextIOWrapper(os.fdopen(fd, "ab"), encoding=self.encoding or "utf-8", errors=self.errors)


class _NoData(logging.Formatter):
    """Tracebacks without exception messages."""

    def formatException(self, ei: ExcInfo) -> str:
        exc_type, _, tb = ei
        frames = "".join(traceback.format_list(traceback.extract_tb(tb)))
        name = exc_type.__name__ if exc_type is not None else "exception"
        return f"Traceback (most recent call last):\n{frames}{name} (message not logged)"


class _OwnMessagesOnly(logging.Filter):
    """Other libraries' warnings and errors keep their logger and place, not their text; their
    chatter below that (the SDK notes every request) is left out. Our own lines go through `scrub`
    (a URL an error message quotes is scrubbed as on every other channel)."""

    def __init__(self, scrub: Callable[[str], str] | None) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name != _OURS and not record.name.startswith(f"{_OURS}."):
            if record.levelno < logging.WARNING:
                return False
            record.msg = "message of %s at %s:%d not logged (it may quote data)"
            record.args = (record.name, record.pathname, record.lineno)
        elif self.scrub is not None:
            record.msg, record.args = self.scrub(record.getMessage()), None
        return True


def private_dir(directory: Path) -> Path:
    """`directory`, created if missing, owner-only either way."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    return directory


def without_data(handler: logging.Handler, scrub: Callable[[str], str] | None = None) -> logging.Handler:
    """`handler` with the formatter and filter above (for stderr as much as for files); `scrub`
    cleans our own lines (the engine's URL and title scrubbing: this layer cannot import it)."""
    handler.setFormatter(_NoData("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_OwnMessagesOnly(scrub))
    return handler


def file_handler(
    name: str, *, backups: int = 3, scrub: Callable[[str], str] | None = None
) -> logging.Handler:
    """A handler writing `<log dir>/<name>.log`, private and without data."""
    path = private_dir(paths.log_dir()) / f"{name}.log"
    handler = _PrivateFile(path, maxBytes=1 << 20, backupCount=backups, encoding="utf-8")
    return without_data(handler, scrub)
