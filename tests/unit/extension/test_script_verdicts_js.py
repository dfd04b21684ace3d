"""The worker's verdicts on script files (worker/lib/script_verdicts.js) under node: a verdict told is
answered for the same key and site only; malformed keys and opaque origins are neither kept nor
answered; the oldest go first once the store is full. The headers the pages' script files loaded with
(the ones that name a cache entry, nothing else) are kept while the pilot is on, the latest load of
each URL per site."""

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


SEEN = """
const listeners = {};
const event = (name) => ({
  addListener: (f, filter, extra) => { listeners[name] = { f, filter, extra }; },
  removeListener: (f) => { if (listeners[name]?.f === f) delete listeners[name]; },
});
globalThis.chrome = { webRequest: { onCompleted: event('completed') } };
const { scriptsSeen, syncScriptHeaders } = await import('./worker/lib/script_verdicts.js');
const A = 'https://a.example';
const loaded = (url, headers, { initiator = A, tabId = 1, statusCode = 200 } = {}) => listeners.completed.f({
  tabId, url, initiator, statusCode,
  responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
});
"""


def test_the_latest_load_of_a_script_is_kept_per_site_while_the_pilot_is_on() -> None:
    out = node.run_module(
        SEEN
        + """
syncScriptHeaders(true);
const asked = { filter: listeners.completed.filter, extra: listeners.completed.extra };
loaded('https://a.example/lib.js', { ETag: '"v1"', 'Content-Length': '9' });
loaded('https://a.example/lib.js', { ETag: '"v2"' }, { tabId: 2 }); // the latest load stands, any tab's
loaded('https://a.example/lib.js', { ETag: '"b"' }, { initiator: 'https://b.example' }); // another site's
loaded('https://a.example/x.js', { ETag: '"x"' }, { initiator: 'null' }); // an opaque document's
loaded('https://a.example/y.js', { ETag: '"y"' }, { initiator: 'chrome-extension://abc', tabId: -1 });
loaded('https://a.example/z.js', { ETag: '"z"' }, { initiator: null, tabId: -1 }); // the browser's
const a = scriptsSeen(A);
const b = scriptsSeen('https://b.example').files.map((f) => f.headers.etag);
const none = [scriptsSeen('null'), scriptsSeen(undefined), scriptsSeen('chrome-extension://abc')];
for (let n = 0; n <= 2000; n += 1) loaded(`https://a.example/${n}.js`, {});
const all = scriptsSeen(A).files.map((f) => f.url);
syncScriptHeaders(false);
console.log(JSON.stringify({ asked, a, b, none, first: all[0], count: all.length, off: scriptsSeen(A),
  listening: Object.keys(listeners) }));
"""
    )
    assert out["asked"] == {
        "filter": {"urls": ["<all_urls>"], "types": ["script"]},
        "extra": ["responseHeaders"],
    }
    assert out["a"] == {
        "files": [{"url": "https://a.example/lib.js", "status": 200, "headers": {"etag": '"v2"'}}]
    }
    assert out["b"] == ['"b"'], "each site's loads apart (the HTTP cache keeps a copy per site)"
    assert out["none"] == [{"files": []}] * 3
    assert (out["first"], out["count"]) == ("https://a.example/1.js", 2000), "the oldest goes first"
    assert out["off"] == {"files": []} and out["listening"] == [], "pilot off: nothing kept, nothing heard"


def test_only_the_headers_that_name_an_entry_are_kept() -> None:
    out = node.run_module(
        SEEN
        + """
syncScriptHeaders(true);
loaded('https://a.example/lib.js', { ETag: '"v1"', 'Set-Cookie': 's=1', 'Last-Modified': 'L',
  'Content-Length': '9', 'Content-Encoding': 'br', 'Content-Type': 'text/javascript', Date: 'D',
  Authorization: 'x' });
console.log(JSON.stringify(scriptsSeen(A).files[0].headers));
"""
    )
    assert out == {
        "etag": '"v1"',
        "last-modified": "L",
        "content-length": "9",
        "content-encoding": "br",
        "content-type": "text/javascript",
        "date": "D",
    }


def test_a_revalidated_file_keeps_the_entry_seen_before_when_its_validators_agree() -> None:
    # A 304 (a page's load that the server confirmed) carries the validators, not the entry's length and
    # type: the entry seen before stands, its date moved; a 304 naming another entry drops it.
    out = node.run_module(
        SEEN
        + """
syncScriptHeaders(true);
const full = { ETag: '"v1"', 'Content-Length': '9', 'Content-Type': 'text/javascript', Date: 'T1' };
const revalidated = (url, headers) => loaded(url, headers, { statusCode: 304 });
loaded('https://a.example/same.js', full);
revalidated('https://a.example/same.js', { ETag: '"v1"', Date: 'T2' });
loaded('https://a.example/other.js', full);
revalidated('https://a.example/other.js', { ETag: '"v2"', Date: 'T2' });
revalidated('https://a.example/unseen.js', { ETag: '"v1"', Date: 'T2' });
console.log(JSON.stringify(scriptsSeen(A).files));
"""
    )
    assert out == [
        {
            "url": "https://a.example/same.js",
            "status": 200,
            "headers": {
                "etag": '"v1"',
                "content-length": "9",
                "content-type": "text/javascript",
                "date": "T2",
            },
        }
    ]
