"""The `tabpilot` command line as a person meets it: help, hidden plumbing, Ctrl-C, the extension
folder and zip, status, workflows without a browser, and errors in the command line's own words."""

from __future__ import annotations

import asyncio
import json
import zipfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot.bridge.server import command as mcp_command
from tabpilot.engine.store import FORMAT, WorkflowDoc, WorkflowStore
from tabpilot.scrapecli.commands import cli_words, replay_command, scrape_command
from tabpilot.wire.errors import ErrorCode
from tests.unit.installer.test_doctor import _fake_host, _info


def _all_commands() -> list[list[str]]:
    """Every command path, groups and their subcommands included."""
    found: list[list[str]] = []
    ctx = click.Context(cli.main)
    for name in cli._COMMANDS:
        command = cli.main.get_command(ctx, name)
        assert command is not None
        found.append([name])
        if isinstance(command, click.Group):
            found += [[name, sub] for sub in command.list_commands(ctx)]
    return found


@pytest.mark.parametrize("path", _all_commands(), ids=" ".join)
def test_every_command_takes_dash_h(path: list[str]) -> None:
    result = CliRunner().invoke(cli.main, [*path, "-h"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")


def test_native_runs_but_stays_out_of_the_help() -> None:
    listed = CliRunner().invoke(cli.main, ["-h"]).output
    commands = {line.split()[0] for line in listed.split("Commands:")[1].splitlines() if line.strip()}
    assert "native" not in commands
    assert {"status", "extension", "mcp", "install", "browser"} <= commands
    assert CliRunner().invoke(cli.main, ["native", "-h"]).exit_code == 0


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    @click.command()
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setitem(cli._COMMANDS, "interrupted", f"{__name__}:INTERRUPTED")
    monkeypatch.setattr(f"{__name__}.INTERRUPTED", interrupted, raising=False)
    result = CliRunner().invoke(cli.main, ["interrupted"])
    assert result.exit_code == cli.EXIT_INTERRUPTED == 130


INTERRUPTED: click.Command | None = None


def test_extension_path_is_the_shipped_folder() -> None:
    result = CliRunner().invoke(cli.main, ["extension", "path"])
    assert result.exit_code == 0
    folder = Path(result.output.strip())
    assert folder == paths.extension_dir()
    assert json.loads((folder / "manifest.json").read_text())["manifest_version"] == 3


def test_extension_pack_writes_a_store_zip(tmp_path: Path) -> None:
    out = tmp_path / "tabpilot.zip"
    result = CliRunner().invoke(cli.main, ["extension", "pack", str(out)])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("manifest.json"))
    assert {"manifest.json", "background.js", "popup.html"} <= names
    assert "README.md" not in names and not any(n.startswith(".") for n in names)
    # The store assigns its own id: a zip carrying the pinned key is refused there.
    assert "key" not in manifest and manifest["name"]
    bad = CliRunner().invoke(cli.main, ["extension", "pack", str(tmp_path / "x.tar")])
    assert bad.exit_code == 2 and not (tmp_path / "x.tar").exists()


def test_status_without_a_browser_says_what_to_do(tp_dirs: dict[str, str]) -> None:
    result = CliRunner().invoke(cli.main, ["status"])
    assert result.exit_code == 0
    assert "No browser is connected" in result.output and "tabpilot browser launch" in result.output
    as_json = json.loads(CliRunner().invoke(cli.main, ["status", "--json"]).output)
    assert as_json == {"connected": False, "browsers": []}


def test_status_lists_connected_browsers_and_their_pilot(tp_dirs: dict[str, str]) -> None:
    run = Path(tp_dirs[paths.ENV_RUNTIME])
    run.mkdir(mode=0o700)

    async def scenario() -> tuple[str, str]:
        server = await _fake_host(run / "0123456789abcdef.sock", _info(label="Work", pilot=True))
        async with server:
            text = await asyncio.to_thread(CliRunner().invoke, cli.main, ["status"])
            js = await asyncio.to_thread(CliRunner().invoke, cli.main, ["status", "--json"])
            return text.output, js.output

    text, js = asyncio.run(scenario())
    assert "0123456789abcdef" in text and "Work" in text and "pilot on" in text
    [browser] = json.loads(js)["browsers"]
    assert browser["label"] == "Work" and browser["pilot"] is True


def _doc(workflow_id: str) -> WorkflowDoc:
    steps = [
        {"type": "navigate", "url": "https://shop.example/"},
        {"type": "fill", "selector": "#pw", "value": "{{params.password}}"},
    ]
    return WorkflowDoc(
        FORMAT, workflow_id, "shop", {"steps": steps}, domains=["shop.example"], required_params=["password"]
    )


def test_workflows_list_export_import_delete_need_no_browser(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    store = WorkflowStore(Path(tp_dirs[paths.ENV_DATA]))
    store.save(_doc("wf-shop-20261123"))
    run = CliRunner()
    listed = run.invoke(cli.main, ["workflows", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    [row] = json.loads(listed.output)
    assert row["workflow_id"] == "wf-shop-20261123" and row["required_params"] == ["password"]
    out = tmp_path / "wf.json"
    assert run.invoke(cli.main, ["workflows", "export", "wf-shop-20261123", str(out)]).exit_code == 0
    assert json.loads(out.read_text())["format"] == FORMAT
    assert run.invoke(cli.main, ["workflows", "delete", "wf-shop-20261123"]).exit_code == 0
    assert json.loads(run.invoke(cli.main, ["workflows", "list", "--json"]).output) == []
    imported = run.invoke(cli.main, ["workflows", "import", str(out)])
    assert imported.exit_code == 0 and imported.output.strip() == "wf-shop-20261123"
    missing = run.invoke(cli.main, ["workflows", "export", "wf-nope-20261123", str(tmp_path / "n.json")])
    assert missing.exit_code == 1 and ErrorCode.WORKFLOW_NOT_FOUND in missing.output


def test_engine_errors_are_told_in_command_line_words() -> None:
    said = cli_words("this workflow needs params ['password']", {"missing_params": ["password", "otp"]})
    assert "--param password=… --param otp=…" in said and "params" not in said.replace("--param", "")
    assert cli_words("override_params: 'x' is not a path", None).startswith("--override 'x'")


def test_every_command_names_a_running_browser_with_target() -> None:
    for name, command in (("scrape", scrape_command), ("replay", replay_command), ("mcp", mcp_command)):
        options = {o for p in command.params for o in p.opts}
        assert "--target" in options and "--browser" in options
        hidden = [p for p in command.params if "--browser" in p.opts]
        assert all(getattr(p, "hidden", False) for p in hidden)
        shown = CliRunner().invoke(cli.main, [name, "-h"])
        assert shown.exit_code == 0 and "--target" in shown.output and "--browser" not in shown.output


@pytest.mark.parametrize(
    "request_json",
    [
        {"operation": "teleport"},
        {"operation": "extract", "selector": "tr", "optoins": {}},
        {"operation": "suggest", "steps": []},
    ],
)
def test_a_scrape_file_the_request_type_refuses_fails_before_any_browser_starts(
    tp_dirs: dict[str, str], tmp_path: Path, request_json: dict[str, object]
) -> None:
    path = tmp_path / "req.json"
    path.write_text(json.dumps(request_json))
    # --target names a browser that is not running: reaching the browser step would fail differently.
    done = CliRunner().invoke(cli.main, ["scrape", str(path), "--target", "nowhere", "-q"])
    assert done.exit_code == 1 and f"[{ErrorCode.INVALID_PARAMS}]" in done.output, done.output


def _failing_commands(base: Path) -> list[tuple[list[str], str]]:
    request = base / "bad.json"
    request.write_text(json.dumps({"operation": "teleport"}))
    return [
        (["replay", "wf-nope-20261123"], ErrorCode.WORKFLOW_NOT_FOUND),
        (["workflows", "delete", "wf-nope-20261123"], ErrorCode.WORKFLOW_NOT_FOUND),
        (["scrape", str(request)], ErrorCode.INVALID_PARAMS),
        (["browser", "stop", "--profile", "no/such"], ErrorCode.INVALID_PARAMS),
        (["status"], ErrorCode.INSECURE_SOCKET_DIR),
        (["install", "--mcp-client", "claude-code"], ErrorCode.INVALID_PARAMS),
    ]


def test_every_command_fails_in_one_format_with_the_fix_in_its_first_line(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    """A real `tabpilot` process per failure: stderr's first line is `Error: [code] …`, in CLI words."""
    import os
    import subprocess
    import sys

    Path(tp_dirs[paths.ENV_RUNTIME]).mkdir(mode=0o755)
    os.chmod(tp_dirs[paths.ENV_RUNTIME], 0o755)  # the umask may have narrowed it
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text("{not json")
    env = {**os.environ, **tp_dirs, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    for args, code in _failing_commands(tmp_path):
        done = subprocess.run(
            [sys.executable, "-m", "tabpilot.cli", *args], env=env, capture_output=True, text=True, timeout=60
        )
        first = done.stderr.splitlines()[0] if done.stderr else ""
        assert done.returncode == 1, (args, done.stderr)
        assert first.startswith(f"Error: [{code}] "), (args, done.stderr)
        assert "{what:" not in done.stderr and "observe" not in done.stderr, "MCP syntax in a CLI message"
    said = subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", "status"], env=env, capture_output=True, text=True, timeout=60
    ).stderr
    assert "chmod 700" in said.splitlines()[0]


def test_install_mcp_client_twice_writes_once(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    """As a person runs it (a `tabpilot` process, a HOME of its own): the second run changes nothing."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    config = home / ".cursor" / "mcp.json"
    config.write_text('{"mcpServers": {"other": {"command": "x"}}}')
    env = {**os.environ, **tp_dirs, "HOME": str(home)}
    runs = [
        subprocess.run(
            [sys.executable, "-m", "tabpilot.cli", "install", "--mcp-client", "cursor"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert "backup" in runs[0].stdout and "unchanged" in runs[1].stdout
    assert len(list(config.parent.glob("*.bak"))) == 1
    assert set(json.loads(config.read_text())["mcpServers"]) == {"other", "tabpilot"}


@pytest.mark.parametrize(
    ("args", "where", "said"),
    [
        (["scrape", "--nope", "x.json"], "tabpilot scrape", "--nope"),
        (["scrape"], "tabpilot scrape", "FILE"),
        (["scrape", "x.json", "--format", "xml"], "tabpilot scrape", "xml"),
        (["nope"], "tabpilot", "nope"),
        (["--nope"], "tabpilot", "--nope"),
        (["browser", "launch", "--nope"], "tabpilot browser launch", "--nope"),
        (["results", "export"], "tabpilot results export", "CORRELATION_ID"),
        (["uninstall", "--purge", "--mcp-client", "cursor"], "tabpilot uninstall", "--purge"),
    ],
    ids=" ".join,
)
def test_a_command_line_that_does_not_parse_says_so_in_the_one_format(
    tp_dirs: dict[str, str], tmp_path: Path, args: list[str], where: str, said: str
) -> None:
    """As a person types it (the installed `tabpilot` script): status 2, and the first line of stderr
    is the one error format, naming what was wrong and the help that shows the right usage."""
    import os
    import subprocess
    import sys

    script = Path(sys.executable).parent / "tabpilot"
    env = {**os.environ, **tp_dirs, "HOME": str(tmp_path)}
    done = subprocess.run([str(script), *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == cli.EXIT_USAGE == 2, done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"Error: [{ErrorCode.INVALID_PARAMS}] "), first
    assert said in first and first.endswith(f"; try `{where} --help`"), first


def test_a_command_or_group_alone_shows_its_help() -> None:
    for path in ([], ["workflows"], ["browser"]):
        shown = CliRunner().invoke(cli.main, path)
        assert shown.output.startswith("Usage: ") and "Error" not in shown.output, shown.output


@pytest.mark.parametrize(
    "args", [["extension", "path"], ["-h"], ["--version"], ["install", "--browser", "chromium"]]
)
def test_a_reader_that_goes_away_ends_the_command_quietly(
    tp_dirs: dict[str, str], tmp_path: Path, args: list[str]
) -> None:
    """`tabpilot … | head -1`: the pipe closes before the output is written; no error, status 141."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # every write now fails, as after `head` has read its lines and gone
    env = {**os.environ, **tp_dirs, "HOME": str(tmp_path)}
    try:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "tabpilot"), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (cli.EXIT_PIPE_CLOSED, ""), done.stderr
