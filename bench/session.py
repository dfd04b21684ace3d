"""What every scenario of one bench run shares: private TabPilot directories, one dedicated headless
profile (launched on first use), a static site on 127.0.0.1 that scenarios write their pages into, and
a log for the servers' stderr. Everything lives in a temporary directory removed on the way out."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from mcp import StdioServerParameters

from tabpilot import paths
from tabpilot.browser.launch import LaunchedBrowser, launch_profile
from tabpilot.demo.server import serve

from .client import progress

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
CHROMIUM = "/usr/bin/chromium"
PROFILE = "bench"


@dataclass(frozen=True)
class Options:
    """How a run is asked for: `runs` repetitions (a scenario reads it as its own unit), `smoke` for one
    pass at the smallest size, `playwright` False to measure TabPilot alone."""

    runs: int = 3
    smoke: bool = False
    playwright: bool = True


@dataclass
class Session:
    """The shared parts; `browser()` starts the dedicated profile the first time it is asked for."""

    root: Path
    env: dict[str, str]
    site: Path
    base: str
    errlog: TextIO
    stack: contextlib.ExitStack
    _launched: LaunchedBrowser | None = field(default=None)

    def pages(self, name: str) -> tuple[Path, str]:
        """A fresh directory of the served site for one scenario's pages, and its URL."""
        folder = self.site / name
        folder.mkdir(exist_ok=True)
        return folder, f"{self.base}/{name}"

    def browser(self) -> LaunchedBrowser:
        """The dedicated headless profile (pilot on, extension connected), stopped with the session."""
        if self._launched is None:
            progress("starting a dedicated headless TabPilot profile")
            launched = launch_profile(PROFILE, headless=True, pilot=True, url=f"{self.base}/index.html")
            self.stack.callback(launched.stop)
            self._launched = launched
        return self._launched

    def params(self) -> StdioServerParameters:
        """How to start `tabpilot mcp` against this session's browser."""
        self.browser()
        return StdioServerParameters(command=TABPILOT, args=["mcp"], env=self.env)


@contextlib.contextmanager
def private_dirs(root: Path) -> Iterator[dict[str, str]]:
    """Point TabPilot's runtime, state and data directories into `root` for this process and its
    children (the browser, hence its native host, and every bridge)."""
    env = {
        paths.ENV_RUNTIME: str(root / "run"),
        paths.ENV_STATE: str(root / "state"),
        paths.ENV_DATA: str(root / "data"),
    }
    (root / "run").mkdir(mode=0o700, parents=True)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def session() -> Iterator[Session]:
    """One bench run's shared session."""
    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-bench-")))
        site = root / "site"
        site.mkdir()
        (site / "index.html").write_text("<!doctype html><title>TabPilot bench</title><p>bench</p>")
        base = stack.enter_context(serve(site))
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(private_dirs(root / "tp"))
        yield Session(root=root, env=env, site=site, base=base, errlog=errlog, stack=stack)
