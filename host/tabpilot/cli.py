"""The `tabpilot` command. Subcommands load their module only when run, so `tabpilot native`
(started by Chrome) and `tabpilot mcp` (started by the MCP client) start fast."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from . import __version__
from .wire.errors import ErrorCode, TabPilotError

# name -> "module:attribute" of a click command
_COMMANDS = {
    "native": "tabpilot.native.command:command",
    "mcp": "tabpilot.bridge.server:command",
    "install": "tabpilot.install_cli:install",
    "uninstall": "tabpilot.install_cli:uninstall",
    "doctor": "tabpilot_installer.doctor:command",
    "status": "tabpilot.status_cli:command",
    "browser": "tabpilot.browser.commands:group",
    "extension": "tabpilot.extension_cli:group",
    "demo": "tabpilot.demo:command",
    "scrape": "tabpilot.scrapecli.commands:scrape_command",
    "replay": "tabpilot.scrapecli.commands:replay_command",
    "workflows": "tabpilot.scrapecli.commands:workflows_group",
    "results": "tabpilot.scrapecli.results:results_group",
}
# Run by Chrome, not by people: it works when named but stays out of the help.
_HIDDEN = {"native"}
# Shells report a command ended by Ctrl-C (SIGINT) as 128 + 2, and one whose reader went away
# (`tabpilot … | head`, SIGPIPE) as 128 + 13.
EXIT_INTERRUPTED = 130
EXIT_PIPE_CLOSED = 141
EXIT_FAILED = 1
# A command line that does not parse: click's status, kept (scripts tell it from a failed run).
EXIT_USAGE = 2


def error_line(exc: TabPilotError) -> str:
    """How every command reports a failure: its code, then what happened and the fix, first line first."""
    return f"Error: [{exc.code}] {exc.message}"


def click_error_line(exc: click.ClickException) -> str:
    """click's own errors (an unknown option, a missing argument, a file it cannot open) in the same
    format, on one line; a usage error names the help that shows the right usage."""
    said = " ".join(exc.format_message().split())
    if not isinstance(exc, click.UsageError):
        return f"Error: [{ErrorCode.INVALID_PARAMS}] {said}"
    where = exc.ctx.command_path if exc.ctx else "tabpilot"
    said = said[:-1] if said.endswith(".") else said
    return f"Error: [{ErrorCode.INVALID_PARAMS}] {said}; try `{where} --help`"


def _report(ctx: click.Context, exc: click.ClickException) -> None:
    if isinstance(exc, click.exceptions.NoArgsIsHelpError):
        raise exc  # `tabpilot` alone (or a group alone): the help is the answer
    click.echo(click_error_line(exc), err=True)
    ctx.exit(exc.exit_code)


def _pipe_closed(ctx: click.Context) -> None:
    # Nothing to tell (the reader is gone), and nothing left for the exit to flush into the pipe.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    ctx.exit(EXIT_PIPE_CLOSED)


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(_COMMANDS) - _HIDDEN)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: Any = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """An unknown option before the command (`tabpilot --nope`) is told like every other error."""
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            _report(ctx, exc)
            raise  # not reached: _report exits
        except BrokenPipeError:  # `tabpilot -h | head -1`
            _pipe_closed(ctx)
            raise  # not reached

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; a TabPilotError is told in one format with status 1, and Ctrl-C ends it
        with status 130 (click's own default is 1)."""
        try:
            return super().invoke(ctx)
        except TabPilotError as exc:
            click.echo(error_line(exc), err=True)
            ctx.exit(EXIT_FAILED)
        except click.ClickException as exc:
            _report(ctx, exc)
        except (KeyboardInterrupt, click.Abort):
            click.echo("interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            _pipe_closed(ctx)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tabpilot")
def main() -> None:
    """TabPilot: your AI agent reads and drives your own browser, locally, with no network port."""


if __name__ == "__main__":
    main()
