"""The code's shape a newcomer relies on: every module imports alone, no import cycle between files or
between packages (Python and the extension's ES modules), and no source file over 400 lines. Each
check works on whatever files exist."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from tests.support.imports import imported_names

ROOT = Path(__file__).resolve().parents[2]
PY_TOPS = (ROOT / "host", ROOT / "installer")
EXTENSION = ROOT / "extension"
MAX_LINES = 400
GENERATED = {"extension/worker/protocol.js"}  # python -m tabpilot.wire.jsgen writes it
# Made of page/*.js by tabpilot.assets when the extension folder is asked for; not kept in git.
MADE = {"extension/agent.js"}
SOURCE_DIRS = ("host", "installer", "extension", "tests", "bench")
SOURCE_SUFFIXES = {".py", ".js", ".mjs"}
SKIPPED_DIRS = {"node_modules", "__pycache__", ".venv", ".cache"}


def python_modules() -> dict[str, Path]:
    """Every module of host/ and installer/ by its dotted name (a package by its __init__.py)."""
    found: dict[str, Path] = {}
    for top in PY_TOPS:
        for path in top.rglob("*.py"):
            if SKIPPED_DIRS.intersection(path.parts):
                continue
            parts = list(path.relative_to(top).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def python_graph() -> dict[str, set[str]]:
    """module -> the modules it loads: what it names, and the packages above them (their __init__
    runs first), except its own packages (already running when it is)."""
    modules = python_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        parts = name.split(".")
        own = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        loads: set[str] = set()
        for target in imported_names(name, path):
            pieces = target.split(".")
            loads.update(
                m
                for i in range(1, len(pieces) + 1)
                if (m := ".".join(pieces[:i])) in modules and m not in own
            )
        graph[name] = loads
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, list(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, list(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def between_packages(graph: Mapping[str, Iterable[str]], sep: str = ".") -> dict[str, set[str]]:
    """The graph between sibling packages (and modules) at every level: an import from a.b.x to a.c.y
    is an edge b -> c under a. A package and what it contains are not two sides."""
    out: dict[str, set[str]] = {}
    for source, targets in graph.items():
        a = source.split(sep)
        for target in targets:
            b = target.split(sep)
            i = 0
            while i < min(len(a), len(b)) and a[i] == b[i]:
                i += 1
            if i < len(a) and i < len(b):
                out.setdefault(sep.join(a[: i + 1]), set()).add(sep.join(b[: i + 1]))
    return out


def _one_root(name: str) -> str:
    # The installer stands among TabPilot's packages (it is one of the layers in test_layers.py).
    return f"tabpilot.{name}" if name.startswith("tabpilot_installer") else name


def test_no_import_cycle_between_python_files() -> None:
    assert cycles(python_graph()) == []


def test_no_import_cycle_between_python_packages() -> None:
    graph = {_one_root(k): {_one_root(t) for t in v} for k, v in python_graph().items()}
    assert cycles(between_packages(graph)) == []


_JS_IMPORT = re.compile(
    r"""(?:^|;)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]""",
    re.M,
)


def js_graph() -> dict[str, set[str]]:
    """extension file -> the extension files it imports (static and dynamic, relative specifiers)."""
    graph: dict[str, set[str]] = {}
    for path in EXTENSION.rglob("*.js"):
        if SKIPPED_DIRS.intersection(path.parts):
            continue
        rel = PurePosixPath(path.relative_to(EXTENSION).as_posix())
        targets: set[str] = set()
        for match in _JS_IMPORT.finditer(path.read_text()):
            spec = match.group(1) or match.group(2)
            if spec.startswith("."):
                parts: list[str] = []
                for piece in (rel.parent / spec).parts:
                    if piece == "..":
                        parts.pop()
                    elif piece != ".":
                        parts.append(piece)
                targets.add("/".join(parts))
        graph[str(rel)] = targets
    return graph


def test_no_import_cycle_between_extension_files() -> None:
    assert cycles(js_graph()) == []


def test_no_import_cycle_between_extension_folders() -> None:
    assert cycles(between_packages(js_graph(), sep="/")) == []


def test_the_cycle_checks_see_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    files = {"p.x": {"q.y"}, "q.z": {"p.w"}, "p.w": set(), "q.y": set()}  # no file cycle, a package one
    assert cycles(files) == [] and cycles(between_packages(files)) == [["p", "q"]]
    assert between_packages({"p.a": {"p.s.b"}, "p.s.c": {"p.d"}}) == {"p.a": {"p.s"}, "p.s": {"p.d"}}
    graph = js_graph()
    assert "worker/lib/state.js" in graph["worker/lib/page.js"], "relative imports are read"
    assert "tabpilot.wire.messages" in python_graph()["tabpilot.bridge.tools.base"]


# Imports each module in a child forked from one interpreter that has loaded only the third-party
# libraries TabPilot uses (not one TabPilot module), so each child starts as a fresh one would for
# TabPilot's own code, without paying for the libraries again. Two children run at a time.
_IMPORT_ALONE = textwrap.dedent(
    """
    import importlib, os, sys, traceback
    modules, libraries = sys.argv[1].split(","), sys.argv[2].split(",")
    for lib in libraries:
        try:
            importlib.import_module(lib)
        except Exception:
            pass
    assert not [m for m in sys.modules if m.split(".")[0] in ("tabpilot", "tabpilot_installer")]
    failed, running = [], {}
    def reap():
        pid, status = os.wait()
        if status != 0:
            failed.append(running[pid])
        del running[pid]
    for name in modules:
        if len(running) >= 2:
            reap()
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(name)
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        running[pid] = name
    while running:
        reap()
    print(",".join(sorted(failed)))
    """
)


def test_every_module_imports_alone() -> None:
    modules = python_modules()
    names = sorted(n for n in modules if n.split(".")[-1] != "__main__")  # running is what it does
    libraries = sorted(
        {
            n.split(".")[0]
            for name in names
            for n in imported_names(name, modules[name])
            if n and n.split(".")[0] not in ("tabpilot", "tabpilot_installer") and not n.startswith(".")
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALONE, ",".join(names), ",".join(libraries)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "", done.stderr[-4000:]


def source_files() -> list[Path]:
    return sorted(
        path
        for top in SOURCE_DIRS
        for path in (ROOT / top).rglob("*")
        if path.suffix in SOURCE_SUFFIXES and path.is_file() and not SKIPPED_DIRS.intersection(path.parts)
    )


def test_no_source_file_is_over_400_lines() -> None:
    long = {
        rel: lines
        for path in source_files()
        if (rel := path.relative_to(ROOT).as_posix()) not in GENERATED | MADE
        and (lines := len(path.read_text(errors="replace").splitlines())) > MAX_LINES
    }
    assert long == {}, "split these along their ideas"
    assert all((ROOT / g).exists() for g in GENERATED), "a generated file named here is gone"
