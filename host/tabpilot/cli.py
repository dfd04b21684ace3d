"""The `tabpilot` command. Subcommands load their module only when run, so `tabpilot native`
(started by Chrome) and `tabpilot mcp` (started by the MCP client) start fast."""

from __future__ import annotations

import importlib
from typing import Any

import click

from . import __version__

# name -> "module:attribute" of a click command
_COMMANDS = {
    "native": "tabpilot.native.host:command",
    "mcp": "tabpilot.bridge.server:command",
    "install": "tabpilot_installer.commands:install",
    "uninstall": "tabpilot_installer.commands:uninstall",
    "doctor": "tabpilot_installer.doctor:command",
    "browser": "tabpilot.browser.commands:group",
    "demo": "tabpilot.demo:command",
    "scrape": "tabpilot.scrapecli.commands:scrape_command",
    "replay": "tabpilot.scrapecli.commands:replay_command",
    "workflows": "tabpilot.scrapecli.commands:workflows_group",
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: Any = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="tabpilot")
def main() -> None:
    """TabPilot: your AI agent reads and drives your own browser, locally, with no network port."""


if __name__ == "__main__":
    main()
