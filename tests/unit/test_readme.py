"""The README: its generated tool reference must not drift, and a newcomer reads it in order."""

from __future__ import annotations

from tabpilot import paths
from tabpilot.bridge.tools import reference


def test_tool_reference_is_current() -> None:
    text = (paths.repo_root() / "README.md").read_text()
    assert reference.render() in text, "run: python -m tabpilot.bridge.tools.reference"


def test_readme_starts_with_the_two_commands() -> None:
    lines = (paths.repo_root() / "README.md").read_text().splitlines()
    start = lines.index("```sh")
    block = lines[start + 1 : lines.index("```", start)]
    assert [line.split("#")[0].strip() for line in block] == ["./dev demo", "./dev test"]
    assert start < lines.index("## Requirements"), "shown before the newcomer's sections"


def test_readme_follows_a_newcomers_order_and_links_the_performance_page() -> None:
    text = (paths.repo_root() / "README.md").read_text()
    order = [
        "## Requirements",
        "## Install",
        "## Register the host and load the extension",
        "## Connect an MCP client",
        "## A first call",
        "## For contributors",
    ]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert "(docs/performance.md)" in text and "<!-- bench:begin -->" not in text
    perf = (paths.repo_root() / "docs" / "performance.md").read_text()
    assert "<!-- bench:begin -->" in perf and "<!-- bench:end -->" in perf
