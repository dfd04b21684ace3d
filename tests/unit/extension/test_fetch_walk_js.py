"""The page agent's walk along next links (page/fetch_walk.js) under node, over a stub fetchExtract:
pages read ahead only as far as the walk says it will ask, each fetched once, handed over in order with
the page asked for, and never reused for another redaction list."""

from __future__ import annotations

from typing import Any

from tests.support import node

pytestmark = node.needed

# A list of 10 pages at https://x.example/list?page=N whose next links lead to N + 1; each fetch
# answers after a timer tick, its next link read (onNext) before it answers, as fetch.js does.
STUB = """
globalThis.__tabpilotAgent = { commands: Object.create(null), use() { return this; } };
const agent = globalThis.__tabpilotAgent;
globalThis.location = new URL('https://x.example/list?page=1');
const fetched = [];
const at = (n) => `https://x.example/list?page=${n}`;
const pending = new Set();
agent.fetchExtract = ({ url, onNext, limit }) => {
  fetched.push(url);
  const n = Number(new URL(url).searchParams.get('page'));
  const next = n < 10 ? at(n + 1) : null;
  const done = (async () => {
    await new Promise((ok) => setTimeout(ok, 1));
    if (next && onNext) onNext(next);
    await new Promise((ok) => setTimeout(ok, 1));
    return { json: `{"rows":[[${n}]],"limit":${limit}}`, final_url: url, next };
  })();
  pending.add(done);
  done.finally(() => pending.delete(done));
  return done;
};
await import('./page/fetch_walk.js');
const ask = (n, ahead, redact = ['.secret']) => agent.commands.fetch_extract({
  url: at(n), selector: 'tr', fields: [{ name: 'a' }], limit: 5, ahead, redact, patterns: [],
});
// Until every fetch under way (and those they started) has answered.
const settle = async () => {
  while (pending.size) await Promise.allSettled([...pending]);
};
const pages = (answer) => {
  const v = JSON.parse(answer.json);
  return [v.rows[0][0], ...(v.later || []).map((p) => p.rows[0][0])];
};
"""


def _run(code: str) -> Any:
    return node.run_module(STUB + code + "\nprocess.exit(0);")


def test_pages_are_read_ahead_as_far_as_asked_once_each_and_handed_over_in_order() -> None:
    out = _run(
        """
        const first = await ask(1, 3);
        await settle();
        const fetchedAfterOne = fetched.length;
        const second = await ask(2, 3);
        await settle();
        const rest = [];
        for (let n = 2 + pages(second).length; n <= 10;) {
          const got = await ask(n, 3);
          rest.push(pages(got));
          n += pages(got).length;
          await settle();
        }
        const counts = {};
        for (const u of fetched) counts[u] = (counts[u] || 0) + 1;
        console.log(JSON.stringify({
          first: pages(first), fetchedAfterOne, second: pages(second), laterUrls: second.later_urls,
          rest, once: Object.values(counts).every((c) => c === 1), total: fetched.length,
        }));
        """
    )
    assert out["first"] == [1]
    assert out["fetchedAfterOne"] == 4, "page 1 and the 3 pages the walk said it would ask for"
    assert out["second"] == [2, 3, 4]
    assert out["laterUrls"] == [f"https://x.example/list?page={n}" for n in (3, 4)]
    assert [p for batch in out["rest"] for p in batch] == list(range(5, 11))
    assert out["once"] and out["total"] == 10


def test_without_ahead_only_the_page_asked_for_is_fetched() -> None:
    out = _run(
        """
        const got = await ask(1, 0);
        await settle();
        console.log(JSON.stringify({ pages: pages(got), fetched }));
        """
    )
    assert out == {"pages": [1], "fetched": ["https://x.example/list?page=1"]}


def test_a_read_made_under_another_redaction_list_is_not_used() -> None:
    out = _run(
        """
        await ask(1, 2);
        await settle();
        const got = await ask(2, 0, ['.secret', '.salary']);
        console.log(JSON.stringify({ pages: pages(got), fetched }));
        """
    )
    assert out["pages"] == [2]
    assert out["fetched"].count("https://x.example/list?page=2") == 2, "read again under the new list"


def test_a_stopped_walk_fetches_nothing_more() -> None:
    # The run was cancelled while it waited for page 1: the reads it had said it would ask for end there.
    out = _run(
        """
        const asked = ask(1, 4);
        const stopped = agent.commands.fetch_walk_stop();
        await asked.catch(() => null);
        await settle();
        console.log(JSON.stringify({ stopped, fetched }));
        """
    )
    assert out["fetched"] == ["https://x.example/list?page=1"], out
