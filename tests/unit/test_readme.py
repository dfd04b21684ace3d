"""The README and the docs it links: the generated parts must not drift, a newcomer reads the README in
order and in five minutes, and every page it sends them to exists."""

from __future__ import annotations

import re

from bench import docs as bench_docs
from bench.scenarios import SCENARIOS

from tabpilot import paths
from tabpilot.bridge.tools import reference

ROOT = paths.repo_root()


def _readme() -> str:
    return (ROOT / "README.md").read_text()


def test_tool_reference_is_current() -> None:
    text = (ROOT / "docs" / "tools.md").read_text()
    assert reference.render() in text, "run: python -m tabpilot.bridge.tools.reference"


def test_readme_starts_with_the_two_commands() -> None:
    lines = _readme().splitlines()
    start = lines.index("```sh")
    block = lines[start + 1 : lines.index("```", start)]
    assert [line.split("#")[0].strip() for line in block] == ["./dev demo", "./dev test"]
    assert start < lines.index("## Requirements"), "shown before the newcomer's sections"


def test_readme_follows_a_newcomers_order_and_stays_short() -> None:
    text = _readme()
    order = [
        "## Requirements",
        "## Install",
        "## Register the host and load the extension",
        "## Connect an MCP client",
        "## A first call",
        "## Safety",
        "## Read more",
        "## For contributors",
    ]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert len(text.splitlines()) <= 250
    assert "<!-- tools:begin" not in text and "<!-- bench:begin" not in text, "reference pages live in docs/"


def test_every_page_the_readme_links_exists() -> None:
    links = re.findall(r"\]\(([^)#:]+)\)", _readme())
    assert "docs/performance.md" in links and "docs/scraping.md" in links
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_install_names_no_file_that_no_step_makes() -> None:
    install = _readme().split("## Install")[1].split("\n## ")[0]
    assert ".whl" not in install
    assert "pipx install ." in install and "./dev dist" in install and "tabpilot --version" in install


def test_the_performance_page_is_generated_from_every_scenario() -> None:
    perf = (ROOT / "docs" / "performance.md").read_text()
    assert perf.count(bench_docs.BEGIN) == 1 and perf.count(bench_docs.END) == 1
    generated = perf.split(bench_docs.BEGIN)[1].split(bench_docs.END)[0]
    for scenario in SCENARIOS.values():
        assert f"### {scenario.title}\n" in generated, scenario.name
