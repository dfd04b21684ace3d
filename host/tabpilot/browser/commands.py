"""`tabpilot browser launch|stop`: dedicated browser profiles with the extension preloaded."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from types import FrameType

import click

from . import process, profile, registry
from .launch import CONNECT_TIMEOUT_S, launch_profile, stop_profile


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C but reported with its own exit status."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


def _stop_on_termination() -> None:
    # The browser runs in its own session, so a closed terminal or a supervisor's SIGTERM reaches
    # only this process: treat them like Ctrl-C and take the browser down with us.
    signal.signal(signal.SIGTERM, _interrupt)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _interrupt)


@click.group()
def group() -> None:
    """Run a dedicated browser profile for the agent, separate from your everyday one."""


@group.command()
@click.option("--profile", "name", default=profile.DEFAULT_PROFILE, show_default=True, help="Profile name.")
@click.option("--headless", is_flag=True, help="No window (--headless=new).")
@click.option(
    "--pilot/--no-pilot",
    default=None,
    help="Switch AI Web Pilot on (or off) in this profile; without either, the profile's last choice "
    "(off for a new one). By passing --pilot, you (the person typing this command) opt this profile in; "
    "nothing the agent sends can do that.",
)
@click.option(
    "--sites",
    metavar="SITE,...",
    help="Let the pilot act only on these sites (host patterns: jira.acme.com, *.acme.com, "
    "127.0.0.1:8000); without it, on every site. The popup can change it later.",
)
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Use this folder (default: the one its last launch used, else <data dir>/profiles/NAME).",
)
@click.option("--detach", is_flag=True, help="Return once the extension has connected; print JSON.")
@click.option("--url", help="Open this URL (checked and retried through the extension when --pilot is on).")
@click.option(
    "--browser-binary", help="Browser to run (default: Chromium; branded Chrome 137+ ignores extensions)."
)
@click.option(
    "--timeout", default=CONNECT_TIMEOUT_S, show_default=True, help="Seconds to wait for the extension."
)
def launch(
    name: str,
    headless: bool,
    pilot: bool | None,
    sites: str | None,
    user_data_dir: Path | None,
    detach: bool,
    url: str | None,
    browser_binary: str | None,
    timeout: float,
) -> None:
    """Start a dedicated profile with the TabPilot extension loaded and its native host registered."""
    # Installed first, so a signal while waiting for the extension also takes the browser down.
    _stop_on_termination()
    launched = launch_profile(
        name,
        headless=headless,
        pilot=pilot,
        sites=None if sites is None else profile.site_patterns(sites),
        user_data_dir=user_data_dir,
        url=url,
        browser_binary=browser_binary,
        timeout_s=timeout,
    )
    for note in launched.notes:
        click.echo(note, err=True)
    if pilot is None:
        click.echo(_kept_pilot(name, launched.pilot), err=True)
    if detach:
        click.echo(json.dumps(launched.to_dict()))
        return
    try:
        # Inside the try: a Ctrl-C the moment this line is read must stop the browser too.
        click.echo(
            f"profile {name!r} running (pid {launched.pid}, {launched.user_data_dir}); "
            f"extension connected as {launched.instance_id}. Ctrl-C stops it.",
            err=True,
        )
        code = launched.wait()
    except KeyboardInterrupt as exc:
        result = launched.stop()
        click.echo(f"stopped (pid {result.pid}, {result.signal})", err=True)
        # Shells report a command ended by signal N as 128 + N (Ctrl-C: 130).
        sys.exit(128 + (exc.signum if isinstance(exc, _Terminated) else signal.SIGINT))
    click.echo(f"browser exited with code {code}", err=True)
    sys.exit(0 if code == 0 else 1)


def _kept_pilot(name: str, on: bool) -> str:
    if on:
        return "AI Web Pilot is on, as at this profile's last launch (--no-pilot switches it off)."
    return (
        f"AI Web Pilot is off in profile {name!r}: the agent can only read its status. "
        f"To opt it in: tabpilot browser launch --profile {name} --pilot"
    )


@group.command()
@click.option("--profile", "name", default=profile.DEFAULT_PROFILE, show_default=True, help="Profile name.")
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder it was launched with (default: the one its last launch used).",
)
@click.option("--timeout", default=10.0, show_default=True, help="Seconds after SIGINT before SIGKILL.")
def stop(name: str, user_data_dir: Path | None, timeout: float) -> None:
    """Stop a profile started with `tabpilot browser launch` (SIGINT, then SIGKILL)."""
    result = stop_profile(name, user_data_dir=user_data_dir, timeout_s=timeout)
    report = {"profile": name, "pid": result.pid, "stopped": result.stopped, "signal": result.signal}
    click.echo(json.dumps(report))
    if not result.stopped:
        click.echo(f"profile {name!r} was not running", err=True)


@group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_command(as_json: bool) -> None:
    """The dedicated profiles on this machine, where they live and whether they run."""
    rows = [
        {"profile": name, "user_data_dir": str(folder), "pid": process.running_pid(folder)}
        for name, folder in registry.known().items()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("No dedicated profile yet: tabpilot browser launch --profile NAME creates one.")
    for row in rows:
        state = f"running (pid {row['pid']})" if row["pid"] else "stopped"
        click.echo(f"{row['profile']}  {state}  {row['user_data_dir']}")
