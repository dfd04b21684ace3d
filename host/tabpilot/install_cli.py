"""`tabpilot install` and `tabpilot uninstall`: the installer's commands (tabpilot_installer does the
work); here, above the dedicated profiles, since a purge removes those too and must find none running."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from tabpilot_installer import browsers, mcp_clients, record
from tabpilot_installer.clients import install_clients, uninstall_clients
from tabpilot_installer.hosts import install_hosts, uninstall_hosts
from tabpilot_installer.machine import Machine

from . import paths
from .browser import process, registry
from .wire.errors import ErrorCode, TabPilotError

_BROWSER_CHOICE = click.Choice([*browsers.BROWSERS, "all"])
_CLIENT_CHOICE = click.Choice(list(mcp_clients.CLIENTS))


def extension_steps(names: list[str]) -> str:
    """How to load the unpacked extension by hand, once per browser profile."""
    pages = sorted({browsers.browser(n).extensions_page for n in names})
    return "\n".join(
        [
            "",
            "Next, load the extension once in each browser profile you want the agent to use:",
            f"  1. open {' or '.join(pages)}",
            '  2. switch on "Developer mode" (top right)',
            f'  3. click "Load unpacked" and choose  {paths.extension_dir()}',
            "  4. click the TabPilot icon and switch on AI Web Pilot when you want the agent to act",
            "Google Chrome 137+ ignores --load-extension, so in Chrome this manual step is the way;",
            "`tabpilot browser launch` instead runs a dedicated Chromium profile with it preloaded.",
        ]
    )


def _refuse_if_profiles_run() -> None:
    running = {n: pid for n, f in registry.known().items() if (pid := process.running_pid(f)) is not None}
    if running:
        names = ", ".join(f"{n} (pid {pid})" for n, pid in running.items())
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS,
            f"dedicated profiles are running: {names}; "
            "stop each first (tabpilot browser stop --profile NAME)",
        )


def _fail(exc: Exception) -> TabPilotError:
    # A refused config file or an unknown name is the input's fault; a file that cannot be written is not.
    code = ErrorCode.INTERNAL_ERROR if isinstance(exc, OSError) else ErrorCode.INVALID_PARAMS
    return TabPilotError(code, str(exc))


@click.command()
@click.option("--browser", "browser_name", type=_BROWSER_CHOICE, help="Default: the installed ones.")
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Register inside this browser user data dir (<DIR>/NativeMessagingHosts) instead.",
)
@click.option("--mcp-client", "clients", type=_CLIENT_CHOICE, multiple=True, help="Add TabPilot to it.")
def install(browser_name: str | None, user_data_dir: Path | None, clients: tuple[str, ...]) -> None:
    """Register the native host with your browsers, and/or add TabPilot to an MCP client's config."""
    machine = Machine.current()
    try:
        if not clients or browser_name or user_data_dir:
            names = browsers.choose(browser_name, lambda: browsers.detect_installed(machine))
            udd = user_data_dir.resolve() if user_data_dir else None
            _entries, report = install_hosts(machine, names, user_data_dir=udd)
            click.echo("\n".join(report.lines))
            click.echo(extension_steps(names))
        if clients:
            click.echo("\n".join(install_clients(machine, list(clients)).lines))
            click.echo("Restart the MCP client so it starts `tabpilot mcp`.")
    except BrokenPipeError:
        raise  # the reader went away (`| head`): the command line ends quietly, not a failure
    except (ValueError, OSError, mcp_clients.ConfigError) as exc:
        raise _fail(exc) from exc


@click.command()
@click.option("--browser", "browser_name", type=_BROWSER_CHOICE, help="Only this browser's registration.")
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Only the registration inside this user data dir.",
)
@click.option("--mcp-client", "clients", type=_CLIENT_CHOICE, multiple=True, help="Only this client.")
@click.option(
    "--purge",
    is_flag=True,
    help="Also delete TabPilot's own folders: dedicated profiles (and their logins), recorded "
    "workflows, cached strategies, logs.",
)
def uninstall(
    browser_name: str | None, user_data_dir: Path | None, clients: tuple[str, ...], purge: bool
) -> None:
    """Undo what `tabpilot install` recorded (everything, or the parts you name)."""
    machine = Machine.current()
    everything = not (browser_name or user_data_dir or clients)
    if purge and not everything:
        raise click.UsageError(
            "--purge removes everything: use it without --browser, --user-data-dir, --mcp-client"
        )
    if purge:
        _refuse_if_profiles_run()
    try:
        lines: list[str] = []
        if everything or browser_name or user_data_dir:
            names = None if browser_name in (None, "all") else [browser_name]
            udd = user_data_dir.resolve() if user_data_dir else None
            lines += uninstall_hosts(machine, names, user_data_dir=udd).lines
        if everything or clients:
            lines += uninstall_clients(machine, list(clients) or None).lines
    except BrokenPipeError:
        raise  # the reader went away (`| head`): the command line ends quietly, not a failure
    except (ValueError, OSError, mcp_clients.ConfigError) as exc:
        raise _fail(exc) from exc
    click.echo("\n".join(lines))
    data_dir = Path(str(machine.tabpilot_data()))
    if purge:
        for folder in (data_dir, paths.state_dir(), paths.runtime_dir()):
            if folder.exists():
                shutil.rmtree(folder)
                click.echo(f"removed folder    {folder}")
    if record.load(data_dir).is_empty():
        click.echo("Nothing recorded is left installed. Remove the extension in chrome://extensions.")
