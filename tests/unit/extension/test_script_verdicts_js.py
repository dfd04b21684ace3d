"""The worker's verdicts on script files (worker/lib/script_verdicts.js) under node: a verdict told is
answered for the same key and site only; malformed keys and opaque origins are neither kept nor
answered; the oldest go first once the store is full."""

from __future__ import annotations

from tests.support import node

pytestmark = node.needed

LIB = """
const { scriptVerdict } = await import('./worker/lib/script_verdicts.js');
const key = (n) => n.toString(16).padStart(64, '0');
const A = 'https://a.example';
"""


def test_a_verdict_is_answered_for_its_key_and_site_only() -> None:
    out = node.run_module(
        LIB
        + """
const before = scriptVerdict(A, { key: key(1) });
scriptVerdict(A, { key: key(1), named: false });
scriptVerdict(A, { key: key(2), named: true });
console.log(JSON.stringify({
  before,
  one: scriptVerdict(A, { key: key(1) }),
  two: scriptVerdict(A, { key: key(2) }),
  otherSite: scriptVerdict('https://b.example', { key: key(1) }),
}));
"""
    )
    assert out == {"before": {}, "one": {"named": False}, "two": {"named": True}, "otherSite": {}}


def test_malformed_keys_and_opaque_origins_are_ignored() -> None:
    out = node.run_module(
        LIB
        + """
scriptVerdict(A, { key: 'abc', named: true });
scriptVerdict('null', { key: key(3), named: false });
scriptVerdict(A, { key: key(4), named: 'yes' });
console.log(JSON.stringify([
  scriptVerdict(A, { key: 'abc' }),
  scriptVerdict('null', { key: key(3) }),
  scriptVerdict(A, { key: key(4) }),
  scriptVerdict(A, null),
]));
"""
    )
    assert out == [{}, {}, {}, {}]


def test_the_oldest_verdicts_go_first_when_the_store_is_full() -> None:
    out = node.run_module(
        LIB
        + """
for (let n = 0; n <= 2000; n += 1) scriptVerdict(A, { key: key(n), named: true });
console.log(JSON.stringify([scriptVerdict(A, { key: key(0) }), scriptVerdict(A, { key: key(2000) })]));
"""
    )
    assert out == [{}, {"named": True}]
