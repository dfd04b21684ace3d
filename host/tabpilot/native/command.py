"""`tabpilot native`: the process Chrome starts for the extension, speaking native messaging on
stdin/stdout; it logs to a private rotating file and exits when stdin reaches EOF."""

from __future__ import annotations

import asyncio
import logging
import os
import sys

import click

from .. import __version__, logfiles, paths
from ..engine import urlscrub
from .host import NativeHost

log = logging.getLogger("tabpilot.host")


def setup_logging(name: str) -> None:
    """Log to a private rotating file in the per-user state directory (never stdout), without data."""
    root = logging.getLogger()
    root.addHandler(logfiles.file_handler(name, scrub=urlscrub.scrub_text))
    root.setLevel(os.environ.get("TABPILOT_LOG_LEVEL", "INFO").upper())


async def _main_async(proto_in: int, proto_out: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**16)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(proto_in, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(proto_out, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    host = NativeHost(writer, paths.runtime_dir())
    await host.run(reader)


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("origin", required=False)
@click.pass_context
def command(ctx: click.Context, origin: str | None) -> None:
    """Native messaging host (Chrome starts this; it speaks on stdin/stdout)."""
    # stdout belongs to the protocol: keep a private copy of it and point fd 1 at stderr, so a stray
    # print from any library can never corrupt a frame.
    proto_out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    setup_logging("host")
    log.info("host %s started by %s (args %s)", __version__, origin, ctx.args)
    # A checkout's page files may have changed since the agent's one file was made from them (a pull,
    # then the extension reloaded, which starts this host): it is made again before a command can
    # inject it. An installed package's was made by its build and stays as it is.
    try:
        paths.extension_dir()
    except (OSError, ValueError) as exc:
        log.warning("the page agent's file could not be brought up to date: %s", exc)
    try:
        asyncio.run(_main_async(os.dup(0), proto_out))
    except KeyboardInterrupt:
        pass
    except Exception:
        log.exception("host crashed")
        raise
