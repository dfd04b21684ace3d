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
