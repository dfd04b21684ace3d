"""The layers import only downward: wire -> engine -> bridge and CLI (the host is an adapter at the edge)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "host" / "tabpilot"

# package -> tabpilot subpackages it must never import
FORBIDDEN = {
    "wire": {"engine", "bridge", "native", "scrapecli", "browser", "demo"},
    "engine": {"bridge", "native", "scrapecli", "browser", "demo"},
}


def _imports(path: Path) -> set[str]:
    """The tabpilot subpackages a module imports (absolute or relative)."""
    tree = ast.parse(path.read_text())
    depth = len(path.relative_to(PKG).parts) - 1
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names = [node.module or ""]
            else:
                base = list(path.relative_to(PKG).parts[:depth])[: depth - node.level + 1]
                names = [".".join([*base, node.module or ""]).strip(".")]
                names += [".".join([*base, a.name]) for a in node.names if not node.module]
            for name in names:
                name = name.removeprefix("tabpilot.")
                found.add(name.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("tabpilot.").split(".")[0] for a in node.names)
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_higher_ones(layer: str) -> None:
    offenders = {
        str(p.relative_to(PKG)): sorted(_imports(p) & FORBIDDEN[layer]) for p in (PKG / layer).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_relative_imports() -> None:
    assert "link" in _imports(PKG / "scrapecli" / "run.py")
    assert "wire" in _imports(PKG / "engine" / "steps" / "click.py")
