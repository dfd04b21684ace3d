"""The page agent reaches pages as one generated file (extension/page_agent.js): it must hold every
page file AGENT_FILES lists, in that order, as they are now, and keep a part that throws from stopping
the parts after it."""

from __future__ import annotations

from pathlib import Path

from tabpilot import paths
from tabpilot.wire import agentgen
from tests.support import node

EXT = paths.extension_dir()


def test_page_agent_js_is_up_to_date() -> None:
    current = (EXT / agentgen.TARGET).read_text()
    assert current == agentgen.render(), "run: python -m tabpilot.wire.agentgen"


def test_it_holds_every_listed_part_in_order() -> None:
    text = (EXT / agentgen.TARGET).read_text()
    names = agentgen.agent_files(EXT)
    assert names[0] == "page/core.js"
    assert len(names) == len(set(names)) > 20
    at = [text.index(f"// ---- {name}\n") for name in names]
    assert at == sorted(at)
    for name in names:
        assert (EXT / name).read_text().rstrip("\n") in text


@node.needed
def test_a_part_that_throws_leaves_the_next_ones_running(tmp_path: Path) -> None:
    (tmp_path / "worker" / "lib").mkdir(parents=True)
    (tmp_path / "page").mkdir()
    (tmp_path / "worker" / "lib" / "page.js").write_text(
        "export const AGENT_FILES = [\n  'page/one.js', 'page/two.js', 'page/three.js',\n];\n"
    )
    (tmp_path / "page" / "one.js").write_text("globalThis.ran = ['one'];\n")
    (tmp_path / "page" / "two.js").write_text("(() => { throw new Error('broken part'); })();\n")
    (tmp_path / "page" / "three.js").write_text("globalThis.ran.push('three');\n")
    bundle = agentgen.render(tmp_path)
    out = node.run_module(
        f"console.error = () => {{}};\n{bundle}\nconsole.log(JSON.stringify(globalThis.ran));"
    )
    assert out == ["one", "three"]
