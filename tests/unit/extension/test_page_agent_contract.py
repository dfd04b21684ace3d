"""The page agent's files share one namespace, but each declares what it takes from the others and what
it adds (`globalThis.__tabpilotAgent.use(file, {needs, provides, later})`, page/core.js). This reads
the files and holds every declaration to the code: no cross-file name used undeclared, none provided
twice, none needed before the file that provides it is injected."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tabpilot import assets, paths

EXT = paths.extension_dir()
NODE = shutil.which("node")

_NAME = r"[A-Za-z_$][\w$]*"
_USE = re.compile(r"\b(?:agent|__tabpilotAgent)\.use\(\s*'(?P<file>\w+)',\s*\{(?P<body>.*?)\}\s*\)", re.S)
_LIST = re.compile(r"\b(?P<kind>needs|provides|later):\s*\[(?P<names>[^\]]*)\]")
_SET = re.compile(rf"\bagent\.(?:commands\.)?({_NAME})\s*=(?!=)")
_SET_COMMAND = re.compile(rf"\bagent\.commands\.({_NAME})\s*=(?!=)")
_READ = re.compile(rf"\bagent\.({_NAME})\b(?!\s*=(?!=))")
_READ_COMMAND = re.compile(rf"\bagent\.commands\.({_NAME})\b(?!\s*=(?!=))")
_DESTRUCTURE = re.compile(r"\bconst\s*\{([^}]*)\}\s*=\s*agent\s*;")
_CORE_MEMBER = re.compile(rf"^    (?:async\s+)?({_NAME})\s*(?:[(:,]|$)", re.M)


@dataclass
class PageFile:
    """One page file as declared and as its code reads."""

    name: str
    needs: set[str]
    provides: set[str]
    later: set[str]
    sets: set[str]
    reads: set[str]


def _code(text: str) -> str:
    """The text without comments and without the declaration itself."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*//.*$", "", text)
    return _USE.sub("", text)


def parse(name: str, text: str) -> PageFile:
    """What file `name` declares and what its code sets and reads on the agent."""
    declared: dict[str, set[str]] = {"needs": set(), "provides": set(), "later": set()}
    uses = list(_USE.finditer(text))
    assert len(uses) == 1, f"{name} declares itself once with agent.use(...), found {len(uses)}"
    assert uses[0]["file"] == Path(name).stem, f"{name} declares itself as {uses[0]['file']!r}"
    for found in _LIST.finditer(uses[0]["body"]):
        declared[found["kind"]] = set(re.findall(r"'([\w$.]+)'", found["names"]))
    code = _code(text)
    sets = {f"commands.{n}" for n in _SET_COMMAND.findall(code)} | {
        m.group(1) for m in _SET.finditer(code) if not m.group(0).startswith("agent.commands.")
    }
    reads = {f"commands.{n}" for n in _READ_COMMAND.findall(code)} | set(_READ.findall(code))
    for names in _DESTRUCTURE.findall(code):
        reads |= {n.split(":")[0].strip() for n in names.split(",") if n.strip()}
    if name == "page/core.js":
        literal = re.search(r"const agent = \{\n(.*?)\n  \};", code, re.S)
        assert literal, "page/core.js builds the agent as one object literal"
        sets |= set(_CORE_MEMBER.findall(literal.group(1)))
    reads -= {"commands"}
    return PageFile(name, declared["needs"], declared["provides"], declared["later"], sets, reads - sets)


def contract_problems(files: list[tuple[str, str]]) -> list[str]:
    """Every way the files' declarations and code disagree, as sentences; `files` in injection order."""
    parsed = [parse(name, text) for name, text in files]
    problems = [
        f"{name} reaches the agent through globalThis, past its declaration"
        for name, text in files
        if name != "page/core.js" and "__tabpilotAgent" in _code(text)
    ]
    provider: dict[str, int] = {}
    for i, f in enumerate(parsed):
        for name in sorted(f.sets - f.provides):
            problems.append(f"{f.name} sets agent.{name} without declaring it in provides")
        for name in sorted(f.provides - f.sets):
            problems.append(f"{f.name} declares it provides {name} but never sets it")
        for name in sorted(f.provides & f.sets):
            if name in provider:
                problems.append(
                    f"{f.name} provides {name}, which {parsed[provider[name]].name} provides already"
                )
            else:
                provider[name] = i
    for i, f in enumerate(parsed):
        declared = f.needs | f.later
        for name in sorted(f.reads - declared):
            problems.append(f"{f.name} uses agent.{name} without declaring it in needs")
        for name in sorted(declared - f.reads):
            problems.append(f"{f.name} declares it needs {name} but never uses it")
        for name in sorted(f.needs & f.later):
            problems.append(f"{f.name} declares {name} both in needs and in later")
        for name in sorted(declared & f.reads):
            if name not in provider:
                problems.append(f"{f.name} reads {name}, which no page file provides")
            elif name in f.needs and provider[name] > i:
                problems.append(
                    f"{f.name} needs {name} from {parsed[provider[name]].name}, injected after it"
                )
    return problems


def test_every_page_file_is_declared_and_injected() -> None:
    listed = assets.agent_files(EXT)
    assert listed[0] == "page/core.js"
    assert sorted(listed) == sorted(f"page/{p.name}" for p in (EXT / "page").glob("*.js"))


def test_the_declarations_hold() -> None:
    files = [(name, (EXT / name).read_text()) for name in assets.agent_files(EXT)]
    assert contract_problems(files) == []


def _page(name: str, header: str, body: str) -> tuple[str, str]:
    return (
        name,
        f"(() => {{\n  const agent = globalThis.__tabpilotAgent.use('{Path(name).stem}', {header});\n"
        f"{body}}})();\n",
    )


def test_the_contract_check_sees_each_disagreement() -> None:
    core = (
        "page/core.js",
        "(() => {\n  const agent = {\n    PageError,\n    commands: {},\n    use(file) {},\n  };\n"
        "  agent.use('core', { provides: ['PageError', 'commands', 'use'], later: ['late'] });\n"
        "  agent.run = () => agent.late();\n})();\n",
    )
    files = [
        core,
        _page(
            "page/a.js",
            "{ needs: ['PageError', 'fromB'], provides: ['one', 'commands.go'] }",
            "  agent.one = 1;\n  agent.commands.go = () => agent.fromB + agent.commands.stop();\n",
        ),
        _page(
            "page/b.js",
            "{ needs: ['stale'], provides: ['fromB', 'one', 'never'] }",
            "  const { PageError } = agent;\n  agent.fromB = 2;\n  agent.one = 3;\n  agent.late = 4;\n"
            "  globalThis.__tabpilotAgent.sneaky();\n",
        ),
    ]
    assert contract_problems(files) == [
        "page/b.js reaches the agent through globalThis, past its declaration",
        "page/core.js sets agent.run without declaring it in provides",
        "page/b.js sets agent.late without declaring it in provides",
        "page/b.js declares it provides never but never sets it",
        "page/b.js provides one, which page/a.js provides already",
        "page/core.js reads late, which no page file provides",
        "page/a.js uses agent.commands.stop without declaring it in needs",
        "page/a.js declares it needs PageError but never uses it",
        "page/a.js needs fromB from page/b.js, injected after it",
        "page/b.js uses agent.PageError without declaring it in needs",
        "page/b.js declares it needs stale but never uses it",
    ]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("one_file", [False, True], ids=["files", "agent.js"])
def test_injected_in_order_every_file_finds_what_it_declared(one_file: bool) -> None:
    # The files run as chrome.scripting runs them: classic scripts, one global scope, in list order;
    # or as the worker injects them, made into one (agent.js).
    script = """
    import { readFileSync } from 'node:fs';
    globalThis.document = { querySelectorAll: () => [], addEventListener() {}, documentElement: {} };
    globalThis.MutationObserver = class { observe() {} };
    for (const file of JSON.parse(process.argv[1])) (0, eval)(readFileSync(file, 'utf8'));
    const agent = globalThis.__tabpilotAgent;
    const has = (n) => (n.startsWith('commands.') ? agent.commands[n.slice(9)] : agent[n]) !== undefined;
    const missing = Object.entries(agent.files).flatMap(([file, d]) =>
      [...(d.needs || []), ...(d.later || [])].filter((n) => !has(n)).map((n) => `${file}: ${n}`));
    console.log(JSON.stringify({ files: Object.keys(agent.files), missing }));
    """
    assert NODE is not None
    injected = [assets.AGENT_BUNDLE] if one_file else assets.agent_files(EXT)
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script, json.dumps(injected)],
        cwd=EXT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out == {"files": [Path(f).stem for f in assets.agent_files(EXT)], "missing": []}
