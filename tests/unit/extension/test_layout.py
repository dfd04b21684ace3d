"""The extension's folders say where their code runs; these rules keep them honest: the worker's lib/
below its commands, scripts for the page (isolated or MAIN world) importing nothing, commands that
share nothing but their registry entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabpilot import paths

EXT = paths.extension_dir().resolve()
_IMPORT = re.compile(r"""^\s*(?:import|export)\s+(?:[\w*\s{},]+?\s+from\s+)?['"](?P<path>[^'"]+)['"]""", re.M)
_DYNAMIC = re.compile(r"""\bimport\s*\(""")


def _rel(path: Path, ext: Path = EXT) -> str:
    return path.relative_to(ext).as_posix()


def imports_of(path: Path) -> list[Path]:
    """The files `path` imports statically, resolved."""
    return [(path.parent / m["path"]).resolve() for m in _IMPORT.finditer(path.read_text())]


def layout_problems(ext: Path) -> list[str]:
    """Every import in extension folder `ext` that crosses a line the layout draws, as a sentence."""
    ext = ext.resolve()
    worker = ext / "worker"
    problems = []
    for path in sorted(ext.rglob("*.js")):
        where = _rel(path, ext)
        targets = imports_of(path)
        if where.startswith(("page/", "main_world/")) and (targets or _DYNAMIC.search(path.read_text())):
            problems.append(f"{where} runs in the page and must import nothing")
        for target in targets:
            what = _rel(target, ext)
            if where.startswith("worker/lib/") and (
                target.is_relative_to(worker / "commands") or what == "worker/dispatch.js"
            ):
                problems.append(f"{where} imports {what}: worker/lib/ sits below the commands")
            if target.is_relative_to(ext / "page"):
                problems.append(f"{where} imports {what}: page scripts are injected, not imported")
            if (
                where.startswith("worker/commands/")
                and path.name != "index.js"
                and target.is_relative_to(worker / "commands")
            ):
                problems.append(f"{where} imports {what}: what commands share lives in worker/lib/")
    return problems


def test_the_layout_holds() -> None:
    assert layout_problems(EXT) == []


def test_the_layout_check_sees_each_crossing(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    for rel, text in {
        "worker/lib/helper.js": "import { run } from '../commands/a.js';\n",
        "worker/commands/a.js": "import { x } from './b.js';\nexport function run() {}\n",
        "worker/commands/b.js": "export const x = 1;\n",
        "worker/dispatch.js": "import { run } from './commands/a.js';\n",
        "main_world/hook.js": "import { x } from '../worker/commands/b.js';\n",
        "page/agent.js": "(() => { import('../worker/lib/helper.js'); })();\n",
        "popup.js": "import './page/agent.js';\n",
    }.items():
        (ext / rel).parent.mkdir(parents=True, exist_ok=True)
        (ext / rel).write_text(text)
    assert layout_problems(ext) == [
        "main_world/hook.js runs in the page and must import nothing",
        "page/agent.js runs in the page and must import nothing",
        "popup.js imports page/agent.js: page scripts are injected, not imported",
        "worker/commands/a.js imports worker/commands/b.js: what commands share lives in worker/lib/",
        "worker/lib/helper.js imports worker/commands/a.js: worker/lib/ sits below the commands",
    ]


@pytest.mark.parametrize("path", sorted((EXT / "worker" / "commands").glob("*.js")), ids=_rel)
def test_a_command_module_exports_only_its_registry_entry(path: Path) -> None:
    if path.name == "index.js":
        return
    exported = re.findall(
        r"^export\s+(?:async\s+)?(?:const|let|function\*?|class)\s+(\w+)", path.read_text(), re.M
    )
    assert sorted(exported) == ["name", "needsPilot", "run"], (
        f"{_rel(path)}: shared helpers belong in worker/lib/"
    )
