"""Places at the site for a run's fetched pages (page/places.js) under node, with fetch_details
(page/fetch_details.js) over a stub fetchExtract that takes its place as fetch.js does: every command of
a pool shares its places (never more requests at once, however many pages are asked for), a page gives
its place back as soon as its body has come (before it is parsed and read), a failed page gives it back
too, the latest size asked for holds, and a command called off leaves its waiting pages unasked while
the other commands' pages go on; without a pool every page is asked for at once. A page too big beside
the others is left out of the answer, never a page asked for alone."""

from __future__ import annotations

from typing import Any

from tests.support import node

pytestmark = node.needed

# Each fetch's body comes after `site` ms (its place given back then, as fetchDocument does), then the
# page is read for `read` ms more; the stub counts the requests at the site and the most at once.
STUB = """
globalThis.__tabpilotAgent = { commands: Object.create(null), use() { return this; } };
const agent = globalThis.__tabpilotAgent;
agent.PageError = class PageError extends Error {
  constructor(code, message) { super(message); this.code = code; }
};
await import('./page/places.js');
let site = 5;
let read = 5;
let atSite = 0;
let most = 0;
let reading = 0; // pages whose body has come, still being read
let mostBusy = 0; // the most pages at the site and being read at once
const asked = [];
const failing = new Set();
const big = new Map(); // url -> characters of its row's value
agent.fetchExtract = async ({ url, place }) => {
  const giveBack = place ? await agent.takePlace(place) : null;
  const started = Date.now();
  asked.push(url);
  atSite += 1;
  most = Math.max(most, atSite);
  await new Promise((ok) => setTimeout(ok, site));
  atSite -= 1;
  giveBack?.();
  giveBack?.(); // once only
  if (failing.has(url)) throw new agent.PageError('http_error', `${url} answered HTTP 500`);
  reading += 1;
  await Promise.resolve(); // the requests given the place back start meanwhile
  mostBusy = Math.max(mostBusy, atSite + reading);
  await new Promise((ok) => setTimeout(ok, read));
  reading -= 1;
  const ms = place ? `,"ms":${Date.now() - started}` : '';
  const value = big.has(url) ? 'x'.repeat(big.get(url)) : url;
  return { json: `{"rows":[["${value}"]]${ms}}`, final_url: url };
};
await import('./page/fetch_details.js');
const urls = (from, n) => Array.from({ length: n }, (_, i) => `https://x.example/d/${from + i}`);
const details = (list, extra = {}) => agent.commands.fetch_details({
  urls: list, fields: [{ name: 'a' }], timeout_ms: 5000, ...extra,
});
const entries = (answer) => answer.pages.map((p) => JSON.parse(p));
"""


def _run(code: str) -> Any:
    return node.run_module(STUB + code + "\nprocess.exit(0);")


def test_a_pool_s_commands_share_its_places_and_a_page_gives_its_place_back_once_its_body_came() -> None:
    out = _run(
        """
        const pool = { pool: 'run-1', in_flight: 3 };
        const [a, b] = await Promise.all([details(urls(1, 6), pool), details(urls(7, 6), pool)]);
        const all = [...entries(a), ...entries(b)];
        console.log(JSON.stringify({
          most, mostBusy, asked: asked.length, ok: all.every((e) => e.ok && e.ok.rows.length === 1),
          ms: all.map((e) => e.ok.ms),
        }));
        """
    )
    assert out["most"] == 3 and out["asked"] == 12 and out["ok"]
    # The reading of a page held no place: the next requests were at the site meanwhile.
    assert out["mostBusy"] > 3, out
    assert all(isinstance(ms, int) and ms >= 4 for ms in out["ms"]), out["ms"]


def test_the_latest_size_holds_and_a_failed_page_gives_its_place_back() -> None:
    out = _run(
        """
        failing.add('https://x.example/d/2');
        const first = details(urls(1, 4), { pool: 'run-1', in_flight: 4 });
        const second = details(urls(5, 8), { pool: 'run-1', in_flight: 1 });
        const [a, b] = await Promise.all([first, second]);
        console.log(JSON.stringify({
          errors: entries(a).filter((e) => e.error).map((e) => e.error.code),
          ok: entries(b).every((e) => e.ok), most, asked: asked.length,
        }));
        """
    )
    # The second command said 1: the first's four had left already; none of the second's joined them.
    assert out == {"errors": ["http_error"], "ok": True, "most": 4, "asked": 12}


def test_a_command_called_off_leaves_its_waiting_pages_unasked_and_the_others_go_on() -> None:
    out = _run(
        """
        site = 20;
        const pool = { pool: 'run-1', in_flight: 2 };
        const first = details(urls(1, 2), { ...pool, ticket: 1 });
        const second = details(urls(3, 4), { ...pool, ticket: 2 });
        const third = details(urls(7, 2), { ...pool, ticket: 3 });
        await new Promise((ok) => setTimeout(ok, 5));
        const stopped = agent.commands.fetch_stop({ pool: 'run-1', ticket: 2 });
        const [a, b, c] = await Promise.all([first, second, third]);
        console.log(JSON.stringify({
          stopped, asked, second: entries(b).map((e) => e.error ? e.error.code : 'ok'),
          others: [...entries(a), ...entries(c)].every((e) => e.ok),
        }));
        """
    )
    assert out["stopped"] == {"stopped": 4}
    assert out["second"] == ["cancelled"] * 4 and out["others"]
    assert sorted(out["asked"]) == [f"https://x.example/d/{n}" for n in (1, 2, 7, 8)]


def test_without_a_pool_every_page_is_asked_for_at_once_and_has_no_time() -> None:
    out = _run(
        """
        const a = await details(urls(1, 7));
        console.log(JSON.stringify({ most, ms: entries(a).map((e) => e.ok.ms ?? null) }));
        """
    )
    assert out == {"most": 7, "ms": [None] * 7}


def test_a_page_too_big_beside_the_others_is_left_out_but_never_one_asked_for_alone() -> None:
    out = _run(
        """
        for (const u of urls(1, 3)) big.set(u, 2_100_000);
        big.set('https://x.example/d/9', 5_000_000);
        const three = entries(await details(urls(1, 3)));
        const alone = entries(await details(['https://x.example/d/9']));
        console.log(JSON.stringify({
          three: three.map((e) => (e.deferred ? 'deferred' : e.ok.rows[0][0].length)),
          alone: alone.map((e) => (e.deferred ? 'deferred' : e.ok.rows[0][0].length)),
        }));
        """
    )
    assert out == {"three": [2_100_000, "deferred", "deferred"], "alone": [5_000_000]}, out
