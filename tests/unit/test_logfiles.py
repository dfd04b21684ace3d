"""Log files: 0600 in a 0700 directory (also when they were created looser), and without data."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot import logfiles, paths
from tabpilot.engine import urlscrub


@pytest.fixture
def handler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[logging.Handler]:
    monkeypatch.setenv(paths.ENV_STATE, str(tmp_path))
    log_dir = tmp_path / "log"
    log_dir.mkdir(mode=0o755)
    (log_dir / "host.log").write_text("an older line\n")
    (log_dir / "host.log").chmod(0o644)
    made = logfiles.file_handler("host")
    loggers = [logging.getLogger(n) for n in ("tabpilot.test", "someone.else")]
    for logger in loggers:
        logger.addHandler(made)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    yield made
    for logger in loggers:
        logger.removeHandler(made)
    made.close()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_are_private(handler: logging.Handler, tmp_path: Path) -> None:
    log_dir = tmp_path / "log"
    assert _mode(log_dir) == 0o700 and _mode(log_dir / "host.log") == 0o600
    logging.getLogger("tabpilot.test").info("first")
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    handler.doRollover()
    logging.getLogger("tabpilot.test").info("second")
    assert {p.name: _mode(p) for p in log_dir.iterdir()} == {"host.log": 0o600, "host.log.1": 0o600}


def test_no_data_in_the_lines(handler: logging.Handler, tmp_path: Path) -> None:
    ours = logging.getLogger("tabpilot.test")
    ours.info("fill failed: %s", "invalid_params")
    logging.getLogger("someone.else").warning("request arguments: %s", {"value": "SECRET-ONE"})
    logging.getLogger("someone.else").info("chatter")
    typed = "SECRET-" + "TWO"  # not a literal: the traceback shows the raising line's source
    try:
        raise ValueError(f"no option {typed!r}")
    except ValueError:
        ours.exception("request crashed")
    handler.flush()
    text = (tmp_path / "log" / "host.log").read_text()
    assert "fill failed: invalid_params" in text
    theirs = [line for line in text.splitlines() if "someone.else" in line]
    assert len(theirs) == 1 and "WARNING" in theirs[0], "its warning only, not its chatter"
    assert "SECRET-ONE" not in text
    assert "SECRET-TWO" not in text and "ValueError (message not logged)" in text
    assert "test_logfiles.py" in text, "the traceback keeps its frames"


def test_our_lines_are_scrubbed_like_every_channel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.ENV_STATE, str(tmp_path))
    made = logfiles.file_handler("bridge", scrub=urlscrub.scrub_text)
    ours = logging.getLogger("tabpilot.scrubbed")
    ours.addHandler(made)
    ours.setLevel(logging.INFO)
    ours.propagate = False
    try:
        ours.warning("loading %s failed", "https://a.example/cb?api_key=K3Y-VALUE-1&page=2")
        ours.warning("title %s", "Keys AKIAQWERTYUIOPASDFGH")
    finally:
        ours.removeHandler(made)
        made.close()
    text = (tmp_path / "log" / "bridge.log").read_text()
    assert "K3Y-VALUE-1" not in text and "AKIAQWERTYUIOPASDFGH" not in text, text
    assert "page=2" in text and "loading https://a.example/cb?" in text, text
