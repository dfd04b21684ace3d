"""What a Python file imports, read from its syntax tree: the layer test and the structure tests share it."""

from __future__ import annotations

import ast
from pathlib import Path


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_names(module: str, path: Path, *, type_checking: bool = False) -> set[str]:
    """The modules the file of `module` imports anywhere (lazy ones too), by full name (`from . import x`
    gives pkg.x); imports under `if TYPE_CHECKING:` only when `type_checking`."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    todo: list[ast.AST] = [ast.parse(path.read_text())]
    while todo:
        node = todo.pop()
        if not type_checking and isinstance(node, ast.If) and _type_checking(node):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                base = ".".join([*package[: len(package) - node.level + 1], *filter(None, [node.module])])
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return found
