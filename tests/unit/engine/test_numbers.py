"""One number grammar for the host's `| number` and the page's `suggest`: the page's copy is generated
from the Python and cannot drift, and the two read the same texts alike. Identifiers stay text."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tabpilot import paths
from tabpilot.engine import numbers
from tabpilot.engine.convert import parse_number

NODE = shutil.which("node")

NUMBERS = ["1,234.50", "$12", "(4)", "1.234,50", "12 pts", "45%", "USD 1,200", "-3", "\u22123", "€ 3,50",
           "1.5e3", "0.25", "0", "12 345", "1\u00a0234", "1\u2019234", "¥1,000", "₹ 99"]  # fmt: skip
TEXTS = [
    "ACC-1001",
    "SKU-000005",
    "ABC 12",
    "007",
    "00042",
    "PROJ-101",
    "#123",
    "v2.1.0",
    "3 items",
    "abc",
    "",
]


def test_the_page_file_is_generated_from_the_python() -> None:
    target = paths.extension_dir() / numbers.TARGET
    assert target.read_text() == numbers.render(), "run: python -m tabpilot.engine.numbers"


@pytest.mark.parametrize("text", NUMBERS)
def test_numbers_are_numbers_and_parse(text: str) -> None:
    assert numbers.looks_numeric(text)
    assert parse_number(text) is not None


@pytest.mark.parametrize("text", TEXTS)
def test_identifiers_and_words_are_not_numbers(text: str) -> None:
    assert not numbers.looks_numeric(text)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_page_reads_every_text_as_the_host_does() -> None:
    assert NODE is not None
    script = (
        "globalThis.__tabpilotAgent = { use() { return this; } };"
        + (paths.extension_dir() / numbers.TARGET).read_text()
        + f"const texts = {json.dumps(NUMBERS + TEXTS)};"
        + "const { WHOLE } = globalThis.__tabpilotAgent.numbers;"
        + "console.log(JSON.stringify(texts.map((t) => WHOLE.test(t.trim()))));"
    )
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [numbers.looks_numeric(t) for t in NUMBERS + TEXTS]
