"""The `tabpilot` command. Subcommands load their module only when run, so `tabpilot native`
(started by Chrome) and `tabpilot mcp` (started by the MCP client) start fast."""

from __future__ import annotations

import importlib
from typing import Any

import click

from . import __version__
from .wire.errors import TabPilotError

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
# Shells report a command ended by Ctrl-C (SIGINT) as 128 + 2.
EXIT_INTERRUPTED = 130
EXIT_FAILED = 1


def error_line(exc: TabPilotError) -> str:
    """How every command reports a failure: its code, then what happened and the fix, first line first."""
    return f"Error: [{exc.code}] {exc.message}"


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

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; a TabPilotError is told in one format with status 1, and Ctrl-C ends it
        with status 130 (click's own default is 1)."""
        try:
            return super().invoke(ctx)
        except TabPilotError as exc:
            click.echo(error_line(exc), err=True)
            ctx.exit(EXIT_FAILED)
        except (KeyboardInterrupt, click.Abort):
            click.echo("interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tabpilot")
def main() -> None:
    """TabPilot: your AI agent reads and drives your own browser, locally, with no network port."""


if __name__ == "__main__":
    main()
