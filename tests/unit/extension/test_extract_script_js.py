"""The page runner's extractor mode under node, with a stand-in document: secrets scrubbed from the
value (whole strings, substrings of 4+ characters longest first, keys, numbers), errors located in the
agent's own lines, and the css_selector root."""

from __future__ import annotations

import json

from tests.support import node

pytestmark = node.needed

# A document with three secret elements (a password input, a PIN, a name containing another secret)
# and a #table element; the selectors the runner asks for decide what it gets.
FAKE_DOM = """
globalThis.NodeList = class {};
globalThis.HTMLCollection = class {};
globalThis.NodeFilter = { SHOW_ELEMENT: 1, SHOW_TEXT: 4 };
const el = (localName, props) => ({ localName, attributes: [], textContent: '', ...props });
const secrets = [
  el('input', { value: 'hunter2-Secret' }),
  el('span', { textContent: ' 42 ' }),
  el('span', { textContent: 'hunter2', attributes: [{ name: 'class', value: 'sensitive' }] }),
  el('span', { textContent: 'REDA' }),
];
const table = el('table', { id: 'table' });
const check = (s) => {
  if (s.endsWith('[')) throw new SyntaxError(`'${s}' is not a valid selector`);
  return null;
};
globalThis.document = {
  createDocumentFragment: () => ({ querySelector: (s) => check(s) }),
  querySelectorAll: (s) => (s === '*' ? [] : secrets),
  querySelector: (s) => (check(s), s === '#table' ? table : null),
  createTreeWalker: () => ({ nextNode: () => null }),
};
globalThis.location = { href: 'https://example.test/page' };
"""


def run_node(body: str) -> dict[str, object]:
    runner = "const { runInPage } = await import('./main_world/run_script.js');\n"
    return node.run_module(FAKE_DOM + runner + body)


def extract(script: str, root: str | None = None, max_chars: int = 1_000_000) -> str:
    """JS: the runner's answer for `script` in extractor mode (JSON text parsed, objects as they are)."""
    opts = json.dumps({"root": root, "redact": [".sensitive", "bad["], "lines": script.count("\n") + 1})
    call = f"await runInPage({json.dumps(script)}, {max_chars}, null, null, {opts})"
    return f"await (async () => {{ const r = {call}; return typeof r === 'string' ? JSON.parse(r) : r; }})()"


def test_secrets_are_scrubbed_everywhere_in_the_value() -> None:
    script = """return [{
      pw: 'hunter2-Secret', inside: 'is hunter2-Secret or hunter2?', pin: '42', pin_text: 'x42y',
      pin_number: 42, other_number: 4242, 'hunter2-Secret': 'key', nested: [['REDA', 'a REDA b']],
    }]"""
    out = run_node(f"console.log(JSON.stringify({extract(script)}));")
    assert out["url"] == "https://example.test/page"
    [row] = out["result"]  # type: ignore[misc]
    assert row == {
        "pw": "[REDACTED]",
        "inside": "is [REDACTED] or [REDACTED]?",  # the longer secret first, then the shorter
        "pin": "[REDACTED]",
        "pin_text": "x42y",  # under 4 characters: whole values only
        "pin_number": "[REDACTED]",
        "other_number": 4242,
        "[REDACTED]": "key",
        "nested": [["[REDACTED]", "a [REDACTED] b"]],
    }
    assert out["redacted"] == 8


def test_errors_are_located_in_the_script_and_scrubbed() -> None:
    thrown = "const a = 1;\nfunction f() { null.x; }\nf();"
    big = extract("return ['x'.repeat(50)]", None, 20)
    out = run_node(
        "console.log(JSON.stringify({"
        f"thrown: {extract(thrown)}, leak: {extract('throw new Error(`pw hunter2-Secret`)')},"
        f"syntax: {extract('return (')}, empty: {extract('let x = 1')}, nil: {extract('return null')},"
        f"missing: {extract('return 1', '#nope')}, invalid: {extract('return 1', 'tr[')},"
        f"rooted: {extract('return root.id', '#table')}, big: {big}"
        "}));"
    )
    t = out["thrown"]["thrown"]  # type: ignore[index]
    assert (t["line"], t["column"]) == (2, 21) and t["error"].startswith("TypeError")
    assert t["stack"].splitlines()[1:] == ["    at f (script:2:21)", "    at script:3:1"]
    assert out["leak"]["thrown"]["error"] == "Error: pw [REDACTED]"  # type: ignore[index]
    assert out["syntax"]["syntax"]["error"].startswith("SyntaxError")  # type: ignore[index]
    assert out["empty"] == {"empty": "undefined"} and out["nil"] == {"empty": "null"}
    assert out["missing"]["bad_root"]["invalid"] is False  # type: ignore[index]
    assert out["invalid"]["bad_root"]["invalid"] is True  # type: ignore[index]
    assert out["rooted"]["result"] == "table"  # type: ignore[index]
    assert out["big"] == {"too_large": 54}
