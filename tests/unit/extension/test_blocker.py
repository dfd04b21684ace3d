"""The request block for piloted tabs (lib/blocker.js, run under node): the URL regex each allowed site
pattern becomes agrees with the scope's own matcher, so the browser blocks exactly what the scope
refuses."""

from __future__ import annotations

import json

from tests.unit.extension.test_extension_js import _run_node, needs_node  # pyright: ignore[reportPrivateUsage]


@needs_node
def test_pattern_regexes_agree_with_the_scope_matcher() -> None:
    out = _run_node(
        """
        globalThis.chrome = { storage: { session: { async set() {} } } };
        const { matches } = await import('./worker/lib/sites.js');
        const { patternRegex } = await import('./worker/lib/blocker.js');
        const patterns = ['jira.acme.com', '*.acme.com', '127.0.0.1:8000', 'example.com:443',
                          'intranet:80', 'a_b-c'];
        const urls = [
          'https://jira.acme.com/browse/X-1', 'http://jira.acme.com:8080/', 'https://evil-jira.acme.com/',
          'https://jira.acme.com.evil.test/', 'https://acme.com/', 'https://a.b.acme.com/x?q=1',
          'https://notacme.com/', 'http://127.0.0.1:8000/a', 'http://127.0.0.1:8001/a',
          'http://127.0.0.1:80001/a', 'https://example.com/', 'http://example.com/', 'https://example.com:443/',
          'http://intranet/', 'http://intranet:80/x', 'https://intranet/', 'http://a_b-c:9/?x',
          'http://jira.acme.com@evil.test/', 'https://jira.acme.com?x', 'https://jira.acme.comx/',
        ];
        const differ = [];
        for (const p of patterns) {
          const re = new RegExp(patternRegex(p));
          for (const u of urls) {
            // A URL with user info is never allowed by the regex; the matcher reads its host.
            const want = matches(p, u) && !new URL(u).username;
            if (re.test(u) !== want) differ.push([p, u, re.test(u)]);
          }
        }
        console.log(JSON.stringify({ differ, any: patterns.map(patternRegex) }));
        """
    )
    r = json.loads(out)
    assert r["differ"] == [], r
