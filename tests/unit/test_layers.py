"""The layers import only downward. LAYERS below is the one place the allowed directions are written:
every package and top-level module of tabpilot and of the installer stands in one layer, and may import
only what stands in a lower one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.imports import imported_names

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "host" / "tabpilot"
INSTALLER = ROOT / "installer" / "tabpilot_installer"

# Bottom up. A name is a package or module below `tabpilot.` (the installer's by its full name); a
# module named on its own (the installer's two commands) stands apart from its package.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "assets"),  # the version; the files the wheel ships
    ("paths",),  # where TabPilot keeps its files
    ("wire", "logfiles"),  # messages, framing, error codes; log files
    ("link", "markdown"),  # the local socket and its client; page HTML to markdown
    ("engine",),  # the scrape engine: talks to the browser through one small interface
    ("native",),  # the native-messaging host Chrome starts: runs the engine, listens on the socket
    ("tabpilot_installer",),  # registers the native host with the browsers
    ("browser",),  # dedicated profiles: launch (registering the host inside), stop, list
    ("bridge",),  # `tabpilot mcp`: the MCP tools, calling browsers through the link
    # the other commands a person runs
    (
        "scrapecli",
        "status_cli",
        "extension_cli",
        "install_cli",
        "demo",
        "tabpilot_installer.doctor",
    ),
    ("cli",),  # `tabpilot`: names its subcommands' modules, loads one when run
    ("__main__",),  # `python -m tabpilot`
)
LAYER_OF = {name: n for n, names in enumerate(LAYERS) for name in names}


def _module_name(path: Path) -> str:
    """`tabpilot.link.client` for host/tabpilot/link/client.py; a package's __init__.py by the package's."""
    top = PKG if path.is_relative_to(PKG) else INSTALLER
    parts = [top.name, *path.relative_to(top).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str | None:
    """The layer name a module belongs to (the longest placed prefix), None outside TabPilot."""
    if module == "tabpilot":
        return "__init__"
    name = module.removeprefix("tabpilot.")
    if name == module and not module.startswith("tabpilot_installer"):
        return None
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in LAYER_OF:
            return ".".join(parts[:end])
    return parts[0]


def _imports(path: Path) -> set[str]:
    """The modules a file imports, by full name; those only type checkers read count too."""
    return imported_names(_module_name(path), path, type_checking=True)


def _sources() -> list[Path]:
    return sorted([*PKG.rglob("*.py"), *INSTALLER.rglob("*.py")])


def _upward(unit: str, modules: set[str]) -> list[str]:
    """The layer names among `modules` that stand at `unit`'s level or higher (itself excepted)."""
    bad = {
        other
        for other in map(_unit, modules)
        if other is not None and other != unit and other in LAYER_OF and LAYER_OF[other] >= LAYER_OF[unit]
    }
    return sorted(bad)


@pytest.mark.parametrize("name", sorted({str(_unit(_module_name(p))) for p in _sources()}))
def test_every_package_and_module_stands_in_a_layer(name: str) -> None:
    assert name in LAYER_OF, f"place {name} in LAYERS"


@pytest.mark.parametrize("layer", [n for names in LAYERS for n in names])
def test_no_layer_imports_its_own_level_or_higher(layer: str) -> None:
    offenders = {
        str(p.relative_to(ROOT)): bad
        for p in _sources()
        if _unit(_module_name(p)) == layer and (bad := _upward(layer, _imports(p)))
    }
    assert offenders == {}


def test_the_check_sees_relative_and_lazy_imports() -> None:
    assert "tabpilot.link.client" in _imports(PKG / "scrapecli" / "run.py")
    assert "tabpilot.wire.messages" in _imports(PKG / "engine" / "steps" / "click.py")
    assert "tabpilot.link.localsock" in _imports(PKG / "link" / "client.py")
    assert "tabpilot_installer.hosts" in _imports(PKG / "browser" / "launch.py")
    assert _unit("tabpilot_installer.doctor") == "tabpilot_installer.doctor"
    assert _unit("tabpilot_installer.hosts") == "tabpilot_installer"
    assert _unit("tabpilot.bridge.tools.page") == "bridge"
    assert _unit("msgspec") is None


def test_the_check_catches_imports_upward_and_sideways() -> None:
    # The link importing the bridge: the kind of edge that made the old package cycle.
    assert _upward("link", {"tabpilot.bridge.server", "tabpilot.wire.errors", "tabpilot.link.localsock"}) == [
        "bridge"
    ]
    assert _upward("markdown", {"tabpilot.link"}) == ["link"]
    assert _upward("tabpilot_installer", {"tabpilot.browser.process"}) == ["browser"]
    assert (
        _upward("tabpilot_installer.doctor", {"tabpilot.browser.process", "tabpilot_installer.hosts"}) == []
    )


def test_the_internals_page_shows_these_layers_top_first() -> None:
    text = (ROOT / "docs" / "internals.md").read_text()
    block = text.split("<!-- layers:begin -->\n```\n")[1].split("```\n<!-- layers:end -->")[0]
    shown = [tuple(re.split(r"\s{2,}", line)[0].split(", ")) for line in block.splitlines()]
    assert shown == list(reversed(LAYERS))
