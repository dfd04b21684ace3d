"""`tabpilot mcp`: TabPilot's MCP server on stdio; it forwards each tool call to a browser's host.

stdout is the protocol channel: nothing else may write to it, so logs go to stderr or a file.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

import click

from .. import logfiles
from ..engine import urlscrub

if TYPE_CHECKING:
    from .stdio import Wire
    from .tools.base import Launcher

log = logging.getLogger("tabpilot.bridge")


@click.command()
@click.option(
    "--launch",
    metavar="NAME",
    help="Start this dedicated browser profile when a call finds no browser connected.",
)
@click.option("--headless", is_flag=True, help="Launch that profile headless.")
@click.option(
    "--target",
    "pinned",
    metavar="BROWSER",
    help="Send every call to this running browser (instance id, label or profile) unless the call "
    "names another.",
)
# The older spelling; `--browser` on the command line names a browser kind (install, doctor).
@click.option("--browser", "pinned_alias", hidden=True)
@click.option("--log-file", is_flag=True, help="Log at INFO to bridge.log in TabPilot's log directory.")
def command(
    launch: str | None, headless: bool, pinned: str | None, pinned_alias: str | None, log_file: bool
) -> None:
    """Serve TabPilot's MCP tools on stdio (your MCP client starts this)."""
    pinned = pinned or pinned_alias
    _setup_logging(log_file)
    import anyio

    from .stdio import Wire

    anyio.run(serve, Wire.stdio(), launch, headless, pinned)


def _setup_logging(to_file: bool) -> None:
    root = logging.getLogger()
    handler: logging.Handler
    if to_file:
        handler = logfiles.file_handler("bridge", backups=2, scrub=urlscrub.scrub_text)
        root.setLevel(logging.INFO)
    else:
        handler = logfiles.without_data(logging.StreamHandler(sys.stderr), urlscrub.scrub_text)
        root.setLevel(logging.WARNING)
    root.addHandler(handler)


async def serve(
    wire: Wire, launch: str | None = None, headless: bool = False, pinned: str | None = None
) -> None:
    """Build the server and serve `wire` until the client leaves."""
    from ..link.client import BrowserPool, PinnedBrowserPool
    from .tools.app import build_server, serve_stdio
    from .tools.base import Backend

    pool = BrowserPool() if pinned is None else PinnedBrowserPool(pinned)
    start = launcher(launch, headless=headless) if launch else None
    try:
        await serve_stdio(build_server(Backend(pool, launch=start, launch_name=launch)), wire)
    finally:
        await pool.aclose()


def launcher(name: str, *, headless: bool = False) -> Launcher:
    """Start the dedicated profile `name` and wait until its extension has connected."""

    async def launch() -> None:
        import functools

        import anyio.to_thread

        from ..wire.errors import ErrorCode, TabPilotError

        try:
            from ..browser.launch import launch_profile
        except ImportError as exc:
            raise TabPilotError(
                ErrorCode.LAUNCH_FAILED,
                "this TabPilot has no browser launcher; start the browser yourself, then call again",
            ) from exc
        # No pilot=True here: the agent's side must not be able to switch AI Web Pilot on.
        start = functools.partial(launch_profile, name, headless=headless)
        try:
            await anyio.to_thread.run_sync(start)
        except TabPilotError:
            raise
        except Exception as exc:
            raise TabPilotError(
                ErrorCode.LAUNCH_FAILED,
                f"could not start browser profile {name!r} ({exc}); "
                "try `tabpilot browser launch` in a terminal",
            ) from exc

    return launch
