"""The page agent's walk along next links (page/fetch_walk.js) under node, over a stub fetchExtract:
pages read ahead only as far as the walk says it will ask, each fetched once, handed over in order with
the page asked for (those on their way waited for, up to half as many as the walk will ask for), and
never reused for another redaction list; the next page fetched as soon as a page's HTML comes when its
next link's tag is the one the page before wrote and its URL the last one's with a number changed
(dropped when the parse reads another), and the page after it too once two next links moved the same
number by the same step (dropped when the next page links another); a walk whose host went keeps what
it read for the walk resumed, and a document left keeps nothing."""

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
const heard = {};
globalThis.addEventListener = (type, listener) => { heard[type] = listener; };
const fetched = [];
const at = (n) => `https://x.example/list?page=${n}`;
const pending = new Set();
const failing = new Set(); // page numbers whose fetch fails once its next link is read
const stalled = new Map(); // page number -> its release: the site holds that page until then
// A page's HTML as it comes, handed to onText before the parse (none unless a test writes it), and
// what happened in order: `fetch n`, `text n` (its HTML came), `next n` (its next link read by the
// parse), `abort n`.
let html = null;
const events = [];
agent.fetchExtract = ({ url, onNext, onText, limit, signal }) => {
  fetched.push(url);
  const n = Number(new URL(url).searchParams.get('page'));
  const next = n < 10 ? at(n + 1) : null;
  events.push(`fetch ${n}`);
  signal?.addEventListener('abort', () => events.push(`abort ${n}`));
  const done = (async () => {
    await new Promise((ok) => setTimeout(ok, 1));
    if (html && onText) events.push(`text ${n}`);
    if (html && onText) onText(html(n), url);
    await new Promise((ok) => setTimeout(ok, 1));
    if (next) events.push(`next ${n}`);
    if (next && onNext) onNext(next);
    await new Promise((ok) => setTimeout(ok, 1));
    if (failing.has(n)) throw new Error(`page ${n} failed`);
    if (stalled.has(n)) await new Promise((ok) => stalled.set(n, ok));
    return { json: `{"rows":[[${n}]],"limit":${limit}}`, final_url: url, next };
  })();
  pending.add(done);
  done.finally(() => pending.delete(done));
  return done;
};
// A URL without its fragment (next_link.js's).
agent.bareUrl = (url) => {
  const u = new URL(url);
  u.hash = '';
  return u;
};
// The URLs among `hrefs` that differ from `next` in exactly one number (next_link.js's).
agent.pagerUrls = (next, hrefs) => hrefs.filter((href) => {
  const a = next.split(/(\\d+)/);
  const b = href.split(/(\\d+)/);
  if (a.length !== b.length || a.some((part, i) => i % 2 === 0 && part !== b[i])) return false;
  return a.filter((part, i) => i % 2 === 1 && part !== b[i]).length === 1;
});
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
        const fetchedAtOne = fetched.length;
        await settle();
        const fetchedAfterOne = fetched.length;
        const second = await ask(4, 3);
        await settle();
        const rest = [];
        for (let n = 4 + pages(second).length; n <= 10;) {
          const got = await ask(n, 3);
          rest.push(pages(got));
          n += pages(got).length;
          await settle();
        }
        const counts = {};
        for (const u of fetched) counts[u] = (counts[u] || 0) + 1;
        console.log(JSON.stringify({
          first: pages(first), fetchedAtOne, fetchedAfterOne, laterUrls: first.later_urls,
          second: pages(second), rest, once: Object.values(counts).every((c) => c === 1),
          total: fetched.length,
        }));
        """
    )
    # Page 1 comes with the pages on their way after it, as many as half of those the walk will ask for
    # (rounded up), waited for; the rest go on being read meanwhile, no further than the walk said.
    assert out["first"] == [1, 2, 3]
    assert out["laterUrls"] == [f"https://x.example/list?page={n}" for n in (2, 3)]
    assert out["fetchedAtOne"] == 4, "page 4 was on its way when the answer left"
    assert out["fetchedAfterOne"] == 4, "page 1 and the 3 pages the walk said it would ask for"
    assert out["second"][0] == 4 and len(out["second"]) >= 3
    assert out["second"] + [p for batch in out["rest"] for p in batch] == list(range(4, 11))
    assert out["once"] and out["total"] == 10


def test_a_page_ahead_that_fails_ends_the_batch_and_is_the_answer_for_it() -> None:
    out = _run(
        """
        failing.add(3);
        const first = await ask(1, 6);
        const third = await ask(3, 6).then(() => 'answered', (err) => err.message);
        console.log(JSON.stringify({ first: pages(first), third }));
        """
    )
    assert out == {"first": [1, 2], "third": "page 3 failed"}


def test_pages_read_are_handed_over_when_the_site_stalls_on_the_next() -> None:
    out = _run(
        """
        stalled.set(3, null);
        const started = Date.now();
        const first = await ask(1, 8);
        const waited = Date.now() - started;
        const third = ask(3, 8);
        stalled.get(3)();
        console.log(JSON.stringify({ first: pages(first), waited, third: pages(await third)[0] }));
        """
    )
    assert out["first"] == [1, 2] and out["third"] == 3
    assert out["waited"] < 5_000, "the wait for pages on their way is bounded"


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


def test_a_walk_whose_host_went_starts_no_more_reads_and_keeps_those_it_made_for_the_walk_resumed() -> None:
    out = _run(
        """
        const first = pages(await ask(1, 4));
        agent.commands.fetch_walk_stop({ keep: true });
        await settle();
        const before = [...fetched];
        // The run resumed asks for the page after the last it was handed, with the same call.
        const again = pages(await ask(first[first.length - 1] + 1, 2));
        await settle();
        console.log(JSON.stringify({ first, before, again, fetched }));
        """
    )
    n = out["first"][-1] + 1
    assert out["first"] == list(range(1, n))
    assert out["before"] == [f"https://x.example/list?page={p}" for p in range(1, len(out["before"]) + 1)]
    assert len(out["before"]) <= 5, "no read ahead past what the walk had asked for"
    assert len(out["before"]) > len(out["first"]), "a page read ahead was kept"
    assert out["again"][0] == n
    assert sorted(out["fetched"]) == sorted(set(out["fetched"])), "no page fetched twice"
    assert len(out["fetched"]) == n + 2


def test_a_document_left_keeps_no_page_read_ahead() -> None:
    out = _run(
        """
        await ask(1, 2);
        agent.commands.fetch_walk_stop({ keep: true });
        await settle();
        heard.pagehide();
        await ask(3, 0);
        console.log(JSON.stringify({ fetched }));
        """
    )
    assert out["fetched"].count("https://x.example/list?page=3") == 2, out


# Rows, a pager's numbered link to the next page (another tag), then the next link itself.
PAGE_HTML = """
html = (n, to = n + 1) => `<table>${'<tr><td><a href="/item/1">x</a></td></tr>'.repeat(3)}</table>`
  + `<nav><a href="/list?page=${n + 1}">${n + 1}</a> `
  + `${n < 10 ? `<a class="next" data-page="${to}" href="/list?page=${to}">Next</a>` : ''}</nav>`;
"""
# Every page of the list asked for in turn, each call saying it will ask for the 4 after it.
WALK_ALL = """
        const got = [];
        for (let n = 1; n <= 10;) {
          const answer = pages(await ask(n, 4));
          got.push(...answer);
          n += answer.length;
        }
        await settle();
        console.log(JSON.stringify({ got, events, fetched }));
"""


def test_the_next_page_is_fetched_as_its_link_comes_before_the_page_is_parsed() -> None:
    out = _run(PAGE_HTML + WALK_ALL)
    events = out["events"]
    assert out["got"] == list(range(1, 11))
    # Every page once, and one past the last (foreseen by the step, below), never handed over.
    assert sorted(out["fetched"]) == sorted(set(out["fetched"])) and len(out["fetched"]) == 11
    assert out["fetched"][-1] == "https://x.example/list?page=11"
    assert not [e for e in events if e.startswith("abort") and e != "abort 11"]
    # Page 1's next link taught the tag; from page 2 on, a next page read ahead is asked for before the
    # parse of the page before read its next link (those the walk asks for itself, once the pages it
    # said it would ask for are read, come after).
    early = [n for n in range(3, 11) if events.index(f"fetch {n}") < events.index(f"next {n - 1}")]
    assert early[:3] == [3, 4, 5] and len(early) >= 5, events


def _page_4_leads_to_9(ahead: int) -> Any:
    """Every page read in turn, each call saying it will ask for `ahead` after it, where page 4's next
    link leads to page 9."""
    return _run(
        PAGE_HTML
        + """
        const written = html;
        html = (n) => written(n, n === 4 ? 9 : n + 1);
        const got = [];
        for (let n = 1; n <= 10;) {
          const answer = pages(await ask(n, AHEAD));
          got.push(...answer);
          n += answer.length;
          await settle();
        }
        console.log(JSON.stringify({ got, events, fetched }));
        """.replace("AHEAD", str(ahead))
    )


def test_a_next_page_fetched_early_that_the_parse_does_not_confirm_is_dropped() -> None:
    # Page 4's HTML has the tag lead elsewhere (what the parse reads is another link): page 9.
    out = _page_4_leads_to_9(ahead=2)
    assert out["got"] == list(range(1, 11)), "every page once, in order, the guess aside"
    events = out["events"]
    assert events.index("fetch 9") < events.index("next 4") < events.index("abort 9"), events
    assert out["fetched"].count("https://x.example/list?page=9") == 2, "the guess, then page 9 in turn"
    assert len(out["fetched"]) == 11


def test_a_next_link_that_is_more_than_the_last_one_with_a_number_changed_is_not_fetched_early() -> None:
    out = _run(
        PAGE_HTML
        + """
        const written = html;
        // Page 3's next link's tag leads to another path: only the parse's next link is fetched.
        const other = (text) => text.replace(/(class="next"[^>]*href=")\\/list\\?/, '$1/other?');
        html = (n) => (n === 3 ? other(written(n)) : written(n));
        const got = pages(await ask(1, 4));
        await settle();
        console.log(JSON.stringify({ got, events, fetched }));
        """
    )
    events = out["events"]
    assert events.index("fetch 3") < events.index("next 2"), "page 3 was fetched early"
    assert not [u for u in out["fetched"] if "/other" in u], out["fetched"]
    assert events.index("next 3") < events.index("fetch 4")


def test_the_page_after_the_next_is_fetched_with_it_once_two_next_links_moved_by_the_same_step() -> None:
    out = _run(PAGE_HTML + WALK_ALL)
    events = out["events"]
    assert out["got"] == list(range(1, 11))
    # Page 3's next link in its HTML (3 -> 4) moves the number page 2's moved (2 -> 3) by the same step:
    # page 5 is asked for with page 4, before page 4's HTML came; and so on, two on their way.
    fetch = {int(e.split()[1]): i for i, e in enumerate(events) if e.startswith("fetch")}
    assert fetch[5] < events.index("text 4") and fetch[8] < events.index("text 7"), " ".join(events)
    # The last page links nothing: the one asked for past it is dropped, never handed over.
    assert out["fetched"].count("https://x.example/list?page=11") == 1
    assert 11 not in out["got"]


def test_a_page_foreseen_by_the_step_that_the_next_page_does_not_link_is_dropped() -> None:
    # Page 5, foreseen from page 3's HTML (3 -> 4), is not page 4's next: dropped.
    out = _page_4_leads_to_9(ahead=4)
    events = out["events"]
    assert out["got"] == list(range(1, 11)), "every page once, in order, the foreseen one aside"
    assert events.index("fetch 5") < events.index("abort 5"), events
    assert "next 5" not in events[: events.index("abort 5")], "dropped before it was read"
