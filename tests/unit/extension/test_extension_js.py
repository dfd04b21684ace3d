"""Static checks of the MV3 extension: syntax, imports, error codes, the command registry, the manifest
(its pure pieces run under node: test_extension_node.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tabpilot import assets, paths
from tabpilot.wire import messages
from tabpilot.wire.errors import ErrorCode

EXT = paths.extension_dir()
# The sources: agent.js is made of page/*.js (tests/unit/test_assets.py).
JS_FILES = sorted(p for p in EXT.rglob("*.js") if p.name != assets.AGENT_BUNDLE)
OWN_JS = [p for p in JS_FILES if p.name != "protocol.js"]
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

_IMPORT = re.compile(r"""^\s*import\s+(?:(?P<what>[\w*\s{},]+?)\s+from\s+)?['"](?P<path>[^'"]+)['"]""", re.M)
_STRING = re.compile(r"""(['"`])((?:\\.|(?!\1).)*)\1""")


def _rel(path: Path) -> str:
    return str(path.relative_to(EXT))


def _run_node(code: str) -> str:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", code],
        cwd=EXT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_there_is_an_extension() -> None:
    assert (EXT / "background.js") in JS_FILES
    assert len(OWN_JS) >= 5


@needs_node
@pytest.mark.parametrize("path", JS_FILES, ids=_rel)
def test_javascript_parses_as_a_module(path: Path) -> None:
    # A plain `node --check file.js` silently accepts broken ES modules; stdin with --input-type does not.
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--check", "--input-type=module"],
        input=path.read_text(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"{_rel(path)}: {done.stderr}"


@pytest.mark.parametrize("path", OWN_JS, ids=_rel)
def test_relative_imports_resolve_to_exported_names(path: Path) -> None:
    text = path.read_text()
    for match in _IMPORT.finditer(text):
        target = (path.parent / match["path"]).resolve()
        assert target.is_file(), f"{_rel(path)} imports missing {match['path']}"
        what = match["what"] or ""
        named = re.search(r"\{([^}]*)\}", what)
        if not named:
            continue
        exported = target.read_text()
        for name in (n.split(" as ")[0].strip() for n in named.group(1).split(",")):
            if not name:
                continue
            pattern = rf"export\s+(?:async\s+)?(?:const|let|function\*?|class)\s+{re.escape(name)}\b"
            assert re.search(pattern, exported), f"{_rel(path)} imports {name!r} that {match['path']} lacks"


# Injected into pages as classic scripts, which cannot import protocol.js: they spell codes out.
PAGE_JS = sorted((EXT / "page").glob("*.js"))


def test_error_codes_come_from_protocol_js() -> None:
    codes = {c.value for c in ErrorCode}
    names = {c.name for c in ErrorCode}
    for path in OWN_JS:
        if path in PAGE_JS:
            continue
        text = path.read_text()
        for used in re.findall(r"\bERR\.([A-Za-z_]+)", text):
            assert used in names, f"{_rel(path)} uses ERR.{used}, which protocol.js does not define"
        for _, literal in _STRING.findall(text):
            assert literal not in codes, f"{_rel(path)} hard-codes the error code {literal!r}: use ERR.*"


@pytest.mark.parametrize("path", PAGE_JS, ids=_rel)
def test_page_scripts_use_only_known_error_codes(path: Path) -> None:
    codes = {c.value for c in ErrorCode}
    text = path.read_text()
    used = re.findall(r"PageError\(\s*'([a-z_]+)'", text) + re.findall(r"code: '([a-z_]+)'", text)
    for code in used:
        assert code in codes, f"{_rel(path)} reports {code!r}, which is not an ErrorCode"
    assert "import " not in text.split("\n", 1)[0], "page scripts are classic scripts"


def test_page_scripts_are_idempotent_iifes() -> None:
    for path in PAGE_JS:
        body = re.sub(r"^(//[^\n]*\n)+", "", path.read_text())
        one_iife = body.startswith("(() => {") and body.rstrip().endswith("})();")
        assert one_iife, f"{_rel(path)} must be one IIFE"
    files = assets.agent_files(EXT)
    assert files[:3] == ["page/core.js", "page/patterns.js", "page/redact.js"]
    assert sorted(files) == sorted(_rel(p) for p in PAGE_JS), "every page script is injected, none missing"


def test_the_registry_handles_exactly_the_wire_commands() -> None:
    handlers = {}
    for path in (EXT / "worker" / "commands").glob("*.js"):
        found = re.search(r"^export const name = '([a-z_]+)';", path.read_text(), re.M)
        if found:
            handlers[found.group(1)] = path
    wire = {messages.tag_of(cls) for cls in messages.EXTENSION_COMMANDS}
    assert set(handlers) == wire
    registry = (EXT / "worker" / "commands" / "index.js").read_text()
    for path in handlers.values():
        assert f"'./{path.name}'" in registry, f"{path.name} is not registered in commands/index.js"


def test_only_ping_and_status_work_with_the_pilot_off() -> None:
    open_commands = set()
    for path in (EXT / "worker" / "commands").glob("*.js"):
        text = path.read_text()
        name = re.search(r"^export const name = '([a-z_]+)';", text, re.M)
        if name and "export const needsPilot = false;" in text:
            open_commands.add(name.group(1))
    assert open_commands == {"ping", "status"}


# The one request the extension makes on a page's behalf: the page agent fetching a page of that
# page's own origin with its cookies, as following a link would (link pagination without rendering).
PAGE_FETCH = EXT / "page" / "fetch.js"


def test_no_network_requests() -> None:
    for path in OWN_JS:
        text = path.read_text()
        for call in re.findall(r"\bfetch\(([^)]*)", text):
            if path == PAGE_FETCH and call.startswith("url.href, { credentials: 'same-origin'"):
                assert "url.origin !== location.origin" in text, "page/fetch.js must refuse other origins"
                continue
            # Reading a script file a fetched page loads: of the page's origin, or loaded by it already.
            if path == PAGE_FETCH and call.startswith("file.href, { credentials: ours ?"):
                assert "!(ours || loaded.has(file.href)) ? Promise.resolve(null)" in text
                continue
            assert call.startswith("chrome.runtime.getURL("), f"{_rel(path)} fetches {call!r}"
        for banned in ("WebSocket", "XMLHttpRequest", "EventSource", "sendBeacon", "localhost", "127.0.0.1"):
            assert banned not in text, f"{_rel(path)} mentions {banned}"


def test_manifest_points_at_files_that_exist() -> None:
    manifest = json.loads((EXT / "manifest.json").read_text())
    assert manifest["background"] == {"service_worker": "background.js", "type": "module"}
    assert (EXT / manifest["action"]["default_popup"]).is_file()
    for page in EXT.glob("*.html"):
        for src in re.findall(r"""(?:src|href)="([^"]+)\"""", page.read_text()):
            assert (EXT / src).is_file(), f"{page.name} refers to missing {src}"
    assert {"nativeMessaging", "alarms", "scripting", "storage"} <= set(manifest["permissions"])
    # An open offscreen document makes Chrome terminate the whole extension when its process crashes.
    assert "offscreen" not in manifest["permissions"]


def test_popup_has_the_pilot_toggle() -> None:
    html = (EXT / "popup.html").read_text()
    assert 'type="checkbox" id="pilot-toggle"' in html
    assert 'id="connection"' in html and 'id="versions"' in html
    assert "AI Web Pilot" in html
