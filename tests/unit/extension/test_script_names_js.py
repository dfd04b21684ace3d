"""Marker names a script builds from pieces (page/script_names.js), under node: split over
constants, joined with `+`, in a template, escaped or in capitals, all count; a name that only
contains the marker as part of another word, or an attribute prefix alone, does not."""

from __future__ import annotations

import pytest

from tests.support import node

pytestmark = node.needed

AGENT = """
globalThis.__tabpilotAgent = { use() { return this; } };
const agent = globalThis.__tabpilotAgent;
await import('./page/script_names.js');
const spells = (src) => agent.spellsMarker(src, ['data-sensitive', 'sensitive'], ['password'], ['private']);
"""

BUILT = [
    "e.setAttribute('data-sens' + 'itive', '')",
    "const a = 'data-sens', b = 'itive'; e.setAttribute(a + b, '')",
    "e.setAttribute('\\x64ata-sensitive', '')",
    "e.setAttribute(`data-${'sen'}sitive`, '')",
    "e.setAttribute('DATA-SENS' + 'ITIVE', '')",
    "e.classList.add(['sens', 'itive'].join(''))",
    "e.type = 'pass' + 'word'",
    "e.autocomplete = 'new-pass' + 'word'",
    "e.dataset['priv' + 'ate'] = ''",
    "/* it's */ e.setAttribute('data-sens' + 'itive', '')",
    "x = /'/; e.setAttribute('data-sens' + 'itive', '')",
]
PLAIN = [
    "x = 'case-sensitive'",
    "e.setAttribute('data-' + name, '')",
    "cache = 'private'",
    "cm = 'codemirror.pass' + 'word'",
    "e.setAttribute('data-sens' + 'itivex', '')",
]


@pytest.mark.parametrize("src", BUILT)
def test_a_marker_built_from_pieces_is_found(src: str) -> None:
    assert node.run_module(AGENT + f"console.log(JSON.stringify(spells({src!r})));") is True


@pytest.mark.parametrize("src", PLAIN)
def test_what_does_not_spell_a_marker_is_not(src: str) -> None:
    assert node.run_module(AGENT + f"console.log(JSON.stringify(spells({src!r})));") is False


# The worker's verdicts (worker/lib/script_verdicts.js) behind a stub of chrome.runtime.sendMessage.
VERDICTS = """
globalThis.__tabpilotAgent = { use() { return this; } };
const agent = globalThis.__tabpilotAgent;
const { scriptVerdict } = await import('./worker/lib/script_verdicts.js');
const sent = [];
let worker = true;
globalThis.chrome = { runtime: { sendMessage: async (msg) => {
  sent.push(msg);
  if (!worker) throw new Error('Could not establish connection. Receiving end does not exist.');
  return scriptVerdict('https://a.example', msg);
} } };
await import('./page/script_names.js');
const scans = [];
const markers = (source, named) => ({ source, test: (text) => { scans.push(text); return named; } });
"""


def test_a_script_read_once_is_answered_by_the_worker_after() -> None:
    out = node.run_module(
        VERDICTS
        + """
const first = await agent.scriptVerdict('lib();', markers('m1', true));
const again = await agent.scriptVerdict('lib();', markers('m1', false));
console.log(JSON.stringify({ first, again, scans, told: sent.filter((m) => 'named' in m).length }));
"""
    )
    assert out == {"first": True, "again": True, "scans": ["lib();"], "told": 1}


def test_new_text_or_other_markers_are_read_again() -> None:
    out = node.run_module(
        VERDICTS
        + """
await agent.scriptVerdict('lib();', markers('m1', false));
const changed = await agent.scriptVerdict('lib(); mark();', markers('m1', true));
const otherList = await agent.scriptVerdict('lib();', markers('m2', true));
console.log(JSON.stringify({ changed, otherList, scans }));
"""
    )
    assert out == {"changed": True, "otherList": True, "scans": ["lib();", "lib(); mark();", "lib();"]}


def test_without_the_worker_the_script_is_read_in_the_page() -> None:
    out = node.run_module(
        VERDICTS
        + """
worker = false;
const a = await agent.scriptVerdict('lib();', markers('m1', true));
const b = await agent.scriptVerdict('lib();', markers('m1', false));
console.log(JSON.stringify({ a, b, scans: scans.length }));
"""
    )
    assert out == {"a": True, "b": False, "scans": 2}
