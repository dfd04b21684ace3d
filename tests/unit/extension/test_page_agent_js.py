"""The pure parts of the page agent and its worker side, run under node: snapshot diff and budget
windows, refs, and URL patterns."""

from __future__ import annotations

from tests.support import node

pytestmark = node.needed

# A page agent with only what the files under test use from core.js.
AGENT = """
class PageError extends Error {
  constructor(code, message, data = null) { super(message); this.code = code; this.data = data; }
}
globalThis.__tabpilotAgent = { PageError, commands: Object.create(null), use() { return this; } };
const agent = globalThis.__tabpilotAgent;
const failure = (fn) => { try { fn(); return null; } catch (e) { return e.code; } };
"""


def _node(code: str) -> object:
    return node.run_module(AGENT + code)


def test_diff_lists_removed_then_added_lines_counting_repeats() -> None:
    out = _node(
        """
        await import('./page/snapshot_cmd.js');
        const d = agent.diffLines(['a', 'b', 'x', 'x', 'c'], ['a', 'x', 'c', 'd', 'd']);
        console.log(JSON.stringify([d, agent.diffLines([], ['a']), agent.diffLines(['a'], ['a'])]));
        """
    )
    assert out == [
        {"added": ["d", "d"], "removed": ["b", "x"]},
        {"added": ["a"], "removed": []},
        {"added": [], "removed": []},
    ]


def test_budget_windows_end_on_whole_lines_and_cover_the_text() -> None:
    out = _node(
        """
        await import('./page/snapshot_cmd.js');
        const text = ['one', 'two two', 'three three three', 'x'.repeat(25), 'end'].join('\\n');
        const parts = [];
        for (let cursor = 0; cursor !== null;) {
          const w = agent.window(text, cursor, 10);
          parts.push(w.text);
          cursor = w.next;
        }
        const all = agent.window(text, 0, 1000);
        console.log(JSON.stringify({ parts, all, past: agent.window(text, 999, 10) }));
        """
    )
    assert isinstance(out, dict)
    # Whole lines where they fit; a line longer than the budget is cut and continues in the next part.
    assert out["parts"] == ["one", "two two", "three thre", "e three", "x" * 10, "x" * 10, "x" * 5 + "\nend"]
    assert out["all"] == {"text": "one\ntwo two\nthree three three\n" + "x" * 25 + "\nend", "next": None}
    assert out["past"] == {"text": "", "next": None}


def test_refs_are_stable_weak_and_go_stale() -> None:
    out = _node(
        """
        await import('./page/refs.js');
        const a = { isConnected: true };
        const b = { isConnected: true };
        const r = [agent.refOf(a), agent.refOf(b), agent.refOf(a)];
        const same = agent.resolveRef('@e1') === a && agent.resolveRef('e2') === b;
        b.isConnected = false;
        console.log(JSON.stringify({
          r, same,
          gone: failure(() => agent.resolveRef('@e2')),
          unknown: failure(() => agent.resolveRef('@e99')),
          malformed: failure(() => agent.resolveRef('button')),
        }));
        """
    )
    assert out == {
        "r": ["@e1", "@e2", "@e1"],
        "same": True,
        "gone": "stale_ref",
        "unknown": "stale_ref",
        "malformed": "invalid_params",
    }


def test_url_patterns_are_substrings_or_whole_url_globs() -> None:
    out = _node(
        """
        const { urlMatcher } = await import('./worker/lib/urlwait.js');
        const cases = [
          ['/account', 'http://a.test/account?x=1'],
          ['*/account', 'http://a.test/account?x=1'],
          ['*/account*', 'http://a.test/account?x=1'],
          ['http://a.test/*.html', 'http://a.test/p/q.html'],
          ['?x=1', 'http://a.test/account?x=1'],
          ['*.test/(a)*', 'http://a.test/(a)b'],
          ['*.test/(a)*', 'http://a.test/ab'],
        ];
        console.log(JSON.stringify(cases.map(([p, u]) => urlMatcher(p)(u))));
        """
    )
    assert out == [True, False, True, True, True, True, False]


def test_pager_links_are_those_that_differ_from_the_next_link_in_one_number() -> None:
    out = _node(
        """
        await import('./page/next_link.js');
        const L = 'https://x.example/list';
        const hrefs = [`${L}?page=1`, `${L}?page=3`, `${L}?page=4`, `${L}?page=4`, `${L}?page=20`, L,
          `${L}?page=5&sort=a`, `${L}/7?page=3`, `https://x.example/lost?page=9`, `${L}?page=3`];
        console.log(JSON.stringify([
          agent.pagerUrls(`${L}?page=3`, hrefs),
          agent.pagerUrls('/i?start=50&n=50', ['/i?start=0&n=50', '/i?start=100&n=50', '/i?start=100&n=20']),
          agent.pagerUrls('/p/2', Array.from({ length: 80 }, (_, i) => `/p/${i + 3}`)).length,
        ]));
        """
    )
    assert out == [
        ["https://x.example/list?page=1", "https://x.example/list?page=4", "https://x.example/list?page=20"],
        ["/i?start=0&n=50", "/i?start=100&n=50"],
        50,
    ]
