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


# A file as the HTTP cache gives it: a Response with its headers and URL (fetch.js hands these over).
FILES = """
const OLD = 'Fri, 01 Jan 2021 00:00:00 GMT';
const NOW = 'Fri, 27 Nov 2026 12:00:00 GMT';
const file = (text, headers, url = 'https://a.example/lib.js') => {
  const r = new Response(text, { headers: { 'content-type': 'text/javascript', date: NOW, ...headers } });
  Object.defineProperty(r, 'url', { value: url });
  return r;
};
"""


def test_the_same_cache_entry_is_answered_without_reading_its_text() -> None:
    out = node.run_module(
        VERDICTS
        + FILES
        + """
const first = await agent.scriptVerdict(file('lib();', { etag: '"v1"' }), markers('m1', true));
const again = file('lib();', { etag: '"v1"', date: 'Sat, 28 Nov 2026 12:00:00 GMT' });
let bodyRead = false;
again.text = async () => { bodyRead = true; return 'lib();'; };
const second = await agent.scriptVerdict(again, markers('m1', false));
console.log(JSON.stringify({ first, second, scans, bodyRead }));
"""
    )
    # A revalidated entry (a later Date) is the same file; its body is left unread.
    assert out == {"first": True, "second": True, "scans": ["lib();"], "bodyRead": False}


def test_a_changed_entry_is_read_again() -> None:
    out = node.run_module(
        VERDICTS
        + FILES
        + """
const [B, C, LATER] = ['https://a.example/b.js', 'https://a.example/c.js', 'Fri, 01 Jan 2021 00:00:01 GMT'];
const v = (text, headers, url, m) => agent.scriptVerdict(file(text, headers, url), m);
await v('lib();', { etag: '"v1"', 'last-modified': OLD }, undefined, markers('m1', false));
const etag = await v('mark();', { etag: '"v2"', 'last-modified': OLD }, undefined, markers('m1', true));
await v('lib();', { 'last-modified': OLD }, B, markers('m1', false));
const modified = await v('mark();', { 'last-modified': LATER }, B, markers('m1', true));
const otherUrl = await v('mark();', { etag: '"v1"' }, C, markers('m1', true));
const otherList = await v('lib();', { etag: '"v1"' }, undefined, markers('m2', true));
console.log(JSON.stringify({ etag, modified, otherUrl, otherList, scans: scans.length }));
"""
    )
    # Each verdict differs from the one kept under the old entry; texts met before go by their hash.
    assert out == {"etag": True, "modified": True, "otherUrl": True, "otherList": True, "scans": 3}


def test_without_a_strong_validator_the_text_decides() -> None:
    out = node.run_module(
        VERDICTS
        + FILES
        + """
const weak = { etag: 'W/"v1"' };
const recent = { 'last-modified': NOW }; // changed within the second it was served: no proof of the bytes
await agent.scriptVerdict(file('lib();', weak), markers('m1', false));
const a = await agent.scriptVerdict(file('mark();', weak), markers('m1', true));
await agent.scriptVerdict(file('lib();', recent, 'https://a.example/b.js'), markers('m1', false));
const b = await agent.scriptVerdict(file('mark();', recent, 'https://a.example/b.js'), markers('m1', true));
await agent.scriptVerdict(file('lib();', {}, 'https://a.example/c.js'), markers('m1', false));
const c = await agent.scriptVerdict(file('mark();', {}, 'https://a.example/c.js'), markers('m1', true));
console.log(JSON.stringify({ a, b, c, scans: scans.length }));
"""
    )
    assert out == {"a": True, "b": True, "c": True, "scans": 2}


@pytest.mark.parametrize(
    ("content_type", "text", "alike"),
    [
        ("text/html; charset=utf-8", "Zoë", True),
        ('text/html;charset="UTF-8"', "Zoë", True),
        ("text/html", "Zoe", True),  # ASCII reads the same in any encoding
        ("text/html; charset=iso-8859-1", "Zoe", True),
        ("text/html", "Zoë", False),  # undeclared: the browser may take another encoding
        ("text/html; charset=iso-8859-1", "Zoë", False),
        ("text/html; charset=utf-16", "Zoë", False),
    ],
)
def test_a_page_read_as_utf8_reads_as_rendered_only_where_nothing_decodes_it_otherwise(
    content_type: str, text: str, alike: bool
) -> None:
    out = node.run_module(
        AGENT + f"console.log(JSON.stringify(agent.decodedAlike({content_type!r}, {text!r})));"
    )
    assert out is alike
