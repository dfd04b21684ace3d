"""Rules the host and the extension both apply are written once in Python and generated into the
extension (worker/protocol.js): the site pattern, the secret patterns (test_secret_patterns.py) and the
number grammar (tests/unit/engine/test_numbers.py). These tests fail when a side drifts: a copy of the
site expression in the extension, a generated file out of date, or either Luhn check (the page agent's,
the page-world script runner's) answering differently from Python's on vectors Python makes."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess

import pytest

from tabpilot import paths
from tabpilot.wire import jsgen
from tabpilot.wire.secret_patterns import luhn_ok
from tabpilot.wire.site_pattern import SITE_MAX_CHARS, SITE_PATTERN, is_site_pattern

EXT = paths.extension_dir()
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

SITES = [
    "jira.acme.com",
    "*.acme.com",
    "intranet:8080",
    "127.0.0.1:8000",
    "localhost",
    "a_b-c.d",
    "*.",
    "acme.com/path",
    "http://acme.com",
    "[::1]",
    "*.*.acme.com",
    "acme..com",
    "acme.com:123456",
    "",
    "UPPER.COM",
    "x" * (SITE_MAX_CHARS + 1),
]


def _node(script: str) -> str:
    assert NODE
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script], cwd=EXT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_protocol_js_is_generated_from_the_tables() -> None:
    assert (EXT / jsgen.TARGET).read_text() == jsgen.render(), "run python -m tabpilot.wire.jsgen"


def test_the_extension_holds_no_copy_of_the_site_expression() -> None:
    body = SITE_PATTERN.strip("^$")
    for path in EXT.rglob("*.js"):
        if path.name == "protocol.js":
            continue
        text = path.read_text()
        assert body not in text and "[a-z0-9_-]+\\." not in text, f"{path} copies the site pattern"
    assert "new RegExp(SITE_PATTERN)" in (EXT / "worker" / "lib" / "sites.js").read_text()


@needs_node
def test_host_and_extension_accept_the_same_sites() -> None:
    script = (
        "import { SITE_PATTERN, SITE_MAX_CHARS } from './worker/protocol.js';"
        "const re = new RegExp(SITE_PATTERN);"
        f"const sites = {json.dumps(SITES)};"
        "console.log(JSON.stringify(sites.map((s) => s.length <= SITE_MAX_CHARS && re.test(s))));"
    )
    assert json.loads(_node(script)) == [is_site_pattern(s) for s in SITES]


def luhn_vectors(n: int = 200) -> list[str]:
    """Digit strings of card lengths, half passing the check, made by Python."""
    rng = random.Random(20261127)
    out = ["4111111111111111", "4111111111111112", "378282246310005", "79927398713", "0000000000000"]
    while len(out) < n:
        body = "".join(rng.choice("0123456789") for _ in range(rng.randint(12, 18)))
        good = next(body + d for d in "0123456789" if luhn_ok(body + d))
        out.append(good if len(out) % 2 else good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10))
    return out


@needs_node
def test_the_page_agents_luhn_check_agrees_with_python() -> None:
    vectors = luhn_vectors()
    script = (
        "globalThis.__tabpilotAgent = { commands: Object.create(null), use() { return this; } };"
        "await import('./page/patterns.js');"
        "const agent = globalThis.__tabpilotAgent;"
        "agent.setPatterns(['luhn:^[0-9]+$']);"
        f"const vectors = {json.dumps(vectors)};"
        "console.log(JSON.stringify(vectors.map((v) => agent.maskPatterns(v) === '[REDACTED]')));"
    )
    assert json.loads(_node(script)) == [luhn_ok(v) for v in vectors]


@needs_node
def test_the_script_runners_luhn_check_agrees_with_python() -> None:
    vectors = luhn_vectors()
    stub = (
        "globalThis.document = { documentElement: { textContent: '' }, querySelectorAll: () => [],"
        " createDocumentFragment: () => ({ querySelector: () => null }),"
        " createTreeWalker: () => ({ nextNode: () => null }) };"
        "globalThis.NodeList = class {}; globalThis.HTMLCollection = class {};"
    )
    script = (
        f"{stub}"
        "const { runInPage } = await import('./main_world/run_script.js');"
        f"const out = await runInPage({json.dumps(json.dumps(vectors))}, 1e7, null, 10000, null,"
        " { redact: [], patterns: ['luhn:\\\\b[0-9]+\\\\b'], values: [] });"
        "console.log(JSON.stringify(JSON.parse(out).result.map((v) => v === '[REDACTED]')));"
    )
    assert json.loads(_node(script)) == [luhn_ok(v) for v in vectors]


def test_the_vectors_hold_both_answers() -> None:
    answers = [luhn_ok(v) for v in luhn_vectors()]
    assert answers.count(True) > 50 and answers.count(False) > 50
    assert all(re.fullmatch(r"[0-9]+", v) for v in luhn_vectors())
