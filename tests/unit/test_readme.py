"""The README's tool reference is generated from the tool definitions and must not drift."""

from __future__ import annotations

from tabpilot import paths
from tabpilot.bridge.tools import reference


def test_tool_reference_is_current() -> None:
    text = (paths.repo_root() / "README.md").read_text()
    assert reference.render() in text, "run: python -m tabpilot.bridge.tools.reference"


def test_readme_starts_with_the_two_commands() -> None:
    lines = (paths.repo_root() / "README.md").read_text().splitlines()
    block = lines[lines.index("```sh") + 1 : lines.index("```")]
    assert [line.split("#")[0].strip() for line in block] == ["./dev demo", "./dev test"]
