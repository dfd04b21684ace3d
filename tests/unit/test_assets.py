"""The page agent's one file (extension/agent.js): made of the files worker/lib/page.js lists, in that
order, kept up to date from them, and the only thing the worker injects."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tabpilot import assets, paths

NODE = shutil.which("node")


def _extension(tmp_path: Path, files: dict[str, str]) -> Path:
    """A folder shaped like the extension's: worker/lib/page.js listing `files` (name -> text)."""
    listed = ", ".join(f"'{name}'" for name in files)
    (tmp_path / "worker" / "lib").mkdir(parents=True)
    (tmp_path / "worker" / "lib" / "page.js").write_text(f"export const AGENT_FILES = [\n  {listed},\n];\n")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


# Two IIFEs that end without a semicolon: one after the other, the second would call the first's value.
FILES = {
    "page/a.js": "// a\n(() => { globalThis.order = ['a']; })()\n",
    "page/b.js": "(() => { globalThis.order.push('b'); })()",
}


def test_the_file_is_the_listed_files_in_their_order(tmp_path: Path) -> None:
    ext = _extension(tmp_path, FILES)
    assets.write_agent_bundle(ext)
    text = (ext / assets.AGENT_BUNDLE).read_text()
    assert text.index("// a\n(() =>") < text.index("globalThis.order.push('b')")
    assert text.startswith("// Made from page/*.js") and "Do not edit" in text.splitlines()[0]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_files_that_end_without_a_semicolon_still_run_one_after_the_other(tmp_path: Path) -> None:
    ext = _extension(tmp_path, FILES)
    assets.write_agent_bundle(ext)
    assert NODE is not None
    script = "eval(require('fs').readFileSync(process.argv[1], 'utf8')); console.log(globalThis.order.join())"
    done = subprocess.run(
        [NODE, "-e", script, str(ext / assets.AGENT_BUNDLE)], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout.strip()) == (0, "a,b"), done.stderr


def test_it_is_made_again_when_a_file_changes_and_left_alone_when_not(tmp_path: Path) -> None:
    ext = _extension(tmp_path, FILES)
    target = ext / assets.AGENT_BUNDLE
    assets.write_agent_bundle(ext)
    os.utime(target, (1, 1))
    assets.write_agent_bundle(ext)
    assert target.stat().st_mtime == 1, "an up-to-date file is not written again"
    (ext / "page" / "b.js").write_text("(() => { globalThis.order.push('B'); })();\n")
    assets.write_agent_bundle(ext)
    assert "push('B')" in target.read_text() and target.stat().st_mtime > 1
    assert sorted(p.name for p in ext.iterdir()) == ["agent.js", "page", "worker"], "nothing left aside"


def test_a_list_that_cannot_be_read_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "worker" / "lib").mkdir(parents=True)
    (tmp_path / "worker" / "lib" / "page.js").write_text("export const FILES = [];\n")
    with pytest.raises(ValueError, match="AGENT_FILES"):
        assets.write_agent_bundle(tmp_path)


def test_the_extension_folder_comes_with_its_agent_up_to_date() -> None:
    ext = paths.extension_dir()
    assert (ext / assets.AGENT_BUNDLE).read_text() == assets.agent_bundle(ext)
    page_js = (ext / "worker" / "lib" / "page.js").read_text()
    # Every injection of the agent is the one file; the list names the sources alone.
    injected = re.findall(r"executeScript\(\{[^}]*files: ([^,}]+?)\s*[,}]", page_js)
    assert injected and set(injected) == {"[AGENT_BUNDLE]"}, injected
