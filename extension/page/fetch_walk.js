// fetch_extract: a same-origin page read without rendering (page/fetch.js), and the pages after it
// along next links read ahead. A walk along next links asks for one page at a time: a round trip per
// page in which the site idles. With `ahead: k` the walk says it will ask for the k pages after this
// one; each is fetched once its predecessor's next link is read (or foreseen, below), through
// fetchExtract as any fetched page (same origin, scripts searched, redaction), and handed over with the
// answer for a page before it, or to the fetch_extract asking for it. A read for other rows, fields or
// redaction lists is not used; a page is fetched ahead once per walk at most. A walk that stops (its
// run cancelled while a page was asked for) stops its reads ahead: `fetch_walk_stop` aborts them, and
// nothing more is fetched. A walk whose host died (`fetch_walk_stop` with `keep`) starts no more reads
// ahead, but keeps those read or on their way for their time: the same walk resumed from this page
// takes them without a request. Nothing kept outlives the document (pagehide), the pilot, or the sites
// allowed (the worker stops every walk then).
(() => {
  const agent = globalThis.__tabpilotAgent.use('fetch_walk', {
    needs: ['bareUrl', 'fetchExtract', 'pagerUrls'],
    provides: ['commands.fetch_extract', 'commands.fetch_walk_stop'],
  });
  const bare = agent.bareUrl;
  const AHEAD_MAX = 32;
  const AHEAD_TTL_MS = 30_000; // a page fetched ahead that nobody asked for is dropped after this
  const TAKEN_MAX = 10_000;
  const BATCH_CHARS = 4_000_000; // pages read ahead handed over with one answer, at most this much JSON
  // The longest an answer waits for pages on their way: the rows read reach the engine (and its journal)
  // this soon even when the site stalls on a page.
  const BATCH_WAIT_MS = 100;
  const walks = new Map(); // what a walk reads (rows, fields, redaction) -> a short id for the keys below
  const ahead = new Map(); // walk + url -> {done, allow, next, timer}: fetched ahead, not yet asked for
  const taken = new Set(); // walk + url: asked for already (never fetched ahead again)

  let walksSeen = 0;
  let era = new AbortController(); // aborted (and replaced) when the walks stop: every read ahead ends
  let paused = false; // the host is gone: no read ahead starts until a walk asks for a page again
  let pauses = 0;
  // [key, read] of the pages the last two answers took: put back when their host goes, which may not
  // have read (nor journaled) them, so that the walk resumed takes them again without a request.
  let recent = [];

  /** Keep `e` (the read of `key`) for a walk to ask for, for AHEAD_TTL_MS. */
  function keepFor(key, e) {
    clearTimeout(e.timer);
    e.timer = setTimeout(() => {
      if (ahead.get(key) === e) ahead.delete(key);
    }, AHEAD_TTL_MS);
    ahead.set(key, e);
  }

  function walkId(what) {
    if (!walks.has(what)) {
      if (walks.size >= 16) walks.clear(); // ids stay unique: the count goes on
      walks.set(what, (walksSeen += 1));
    }
    return walks.get(what);
  }

  // ---- the next link's URL from the HTML as it comes -------------------------------------------------
  // Along next links the site would idle while a page is parsed and its next link read. A list's pages
  // write their next link alike: once a page's next link is known, its opening tag (the URL left out,
  // found once in that page's HTML) is looked for in the next page's HTML as soon as it comes. Found
  // once, its URL is fetched at once as the page after when it is the last next link's URL with one
  // number changed (same origin, nothing in it new but the number); the parse confirms it, or that
  // fetch is dropped (aborted, with whatever it started) and the walk goes on from the next link the
  // parse read, and learns the tag again.
  const shapes = new Map(); // walk -> {re: the next link's opening tag, its href a group; last: its URL}
  const TAG = /<a\b[^>]*>/gi;
  const HREF = /(\shref\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
  const CHARS = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
  const ESCAPED = /&(amp|quot|apos|lt|gt|#\d+|#x[0-9a-f]+);/gi;
  const reEscape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** The absolute URL (no fragment) an href value in the HTML leads to from `base`, or null when this
   * cannot tell it as the parser would (a character reference it does not know, a <base>). */
  function resolve(value, base) {
    if (value.replace(ESCAPED, '').includes('&')) return null;
    const text = value.replace(ESCAPED, (_, c) => CHARS[c.toLowerCase()] ?? String.fromCodePoint(c[1] === 'x' || c[1] === 'X' ? parseInt(c.slice(2), 16) : Number(c.slice(1))));
    try {
      const u = bare(new URL(text.trim(), base).href);
      return /^https?:$/.test(u.protocol) ? u.href : null;
    } catch {
      return null;
    }
  }

  /** The tag of `next` (the next link the parse read) in a page's HTML `text`, as a pattern for the next page's. */
  function learn(walk, text, base, next) {
    shapes.delete(walk);
    steps.delete(walk);
    if (/<base[\s>]/i.test(text)) return;
    const found = [];
    for (const [tag] of text.matchAll(TAG)) {
      const h = HREF.exec(tag);
      if (!h || resolve(h[3] ?? h[4] ?? h[5], base) !== next) continue;
      const q = h[2][0] === '"' || h[2][0] === "'" ? h[2][0] : '';
      const value = q ? `${q}([^${q}]*)${q}` : '([^\\s"\'=<>`]+)';
      // Numbers around the URL (a data-page, an aria-label's "page 3") change from page to page too.
      const around = (part) => reEscape(part).replace(/\d+/g, '\\d+');
      const re = new RegExp(around(tag.slice(0, h.index + h[1].length)) + value + around(tag.slice(h.index + h[0].length)), 'g');
      if (!found.some((r) => r.source === re.source)) found.push(re);
    }
    const once = found.filter((re) => [...text.matchAll(re)].length === 1);
    if (once.length === 1) shapes.set(walk, { re: once[0], last: next });
  }

  /** The next page's URL read from a page's HTML by the tag learnt, or null. */
  function guess(walk, text, base) {
    const shape = shapes.get(walk);
    if (!shape || /<base[\s>]/i.test(text)) return null;
    const seen = [...text.matchAll(shape.re)];
    if (seen.length !== 1) return null;
    const url = resolve(seen[0][1], base);
    if (!url || url === bare(base).href || new URL(url).origin !== location.origin) return null;
    return agent.pagerUrls(shape.last, [url]).length === 1 ? url : null;
  }

  // ---- the page after the next, when the next links count by a steady step -----------------------
  // A walk that waits for each page's HTML before asking for the next keeps one request on its way: the
  // site idles for the trip between them. Where the last two next links each changed the same number by
  // the same step (`?page=7` after 6 after 5, `?start=150` after 100 after 50), the page after the next
  // is asked for as the next is: two on their way. Its own next link confirms it (its HTML's tag, then
  // its parse), or it is dropped (aborted) and the walk goes on from the link read. A list's last page
  // links nothing: the one request past it is dropped unread.
  const steps = new Map(); // walk -> {at, by}: the number its last next link changed (index, step)

  /** `to`'s number at `at` moved on by `by`, or null (another shape, a zero-padded or huge number). */
  function stepFrom(from, to) {
    const a = from.split(/(\d+)/);
    const b = to.split(/(\d+)/);
    if (a.length !== b.length) return null;
    const changed = b.flatMap((part, i) => (part === a[i] ? [] : [i]));
    const at = changed[0];
    const plain = (d) => d.length <= 15 && (d === '0' || d[0] !== '0');
    if (changed.length !== 1 || at % 2 === 0 || !plain(a[at]) || !plain(b[at])) return null;
    return { at, by: Number(b[at]) - Number(a[at]) };
  }

  /** Ask for the page after `next` (the next of `url`) when the step from `url` to it repeats the last. */
  function foresee(walk, url, next, opts, allow) {
    const step = stepFrom(url, next);
    const last = steps.get(walk);
    steps.set(walk, step);
    if (!step || !last || last.at !== step.at || last.by !== step.by || allow < 0) return;
    const parts = next.split(/(\d+)/);
    const n = Number(parts[step.at]) + step.by;
    if (n < 0 || !Number.isSafeInteger(n)) return;
    parts[step.at] = String(n);
    const further = parts.join('');
    if (new URL(further).origin !== location.origin) return;
    const e = ahead.get(`${walk}\n${next}`);
    if (!e || e.settled || e.early || e.next || e.text !== null || taken.has(`${walk}\n${further}`)) return;
    e.early = further;
    want(walk, further, opts, allow);
  }

  /** A page fetched early on a guess the parse did not confirm: dropped, and what it started. */
  function drop(walk, url) {
    const key = `${walk}\n${url}`;
    const e = ahead.get(key);
    if (!e) return;
    ahead.delete(key);
    clearTimeout(e.timer);
    e.abort();
    for (const onward of new Set([e.early, e.next])) if (onward) drop(walk, onward);
  }

  function fetchAhead(walk, url, opts, allow) {
    const key = `${walk}\n${url}`;
    const ctl = new AbortController();
    const abort = () => ctl.abort();
    const from = era.signal;
    from.addEventListener('abort', abort, { once: true });
    const e = { allow, next: null, early: null, text: null, base: null, timer: null, stop: ctl.signal, abort, settled: false };
    e.done = agent.fetchExtract({
      ...opts,
      url,
      signal: e.stop,
      onText: (text, base) => {
        if (paused || e.allow <= 0 || e.stop.aborted) return;
        e.text = text;
        e.base = base;
        let early = null;
        try {
          early = guess(walk, text, base);
        } catch {
          return; // no guess: the walk goes the usual way
        }
        // A page after it foreseen by the step (below) that its own HTML does not link: dropped.
        if (early && e.early && e.early !== early) drop(walk, e.early);
        if (!early || taken.has(`${walk}\n${early}`)) return;
        e.early = early;
        want(walk, early, opts, e.allow - 1);
        foresee(walk, url, early, opts, e.allow - 2);
      },
      onNext: (next) => {
        e.next = next;
        if (e.early !== next) {
          if (e.early) drop(walk, e.early);
          try {
            if (e.text !== null) learn(walk, e.text, e.base, next);
          } catch {
            shapes.delete(walk); // nothing learnt: no page is fetched early
          }
        } else if (shapes.has(walk)) shapes.get(walk).last = next;
        e.text = null;
        if (paused) e.allow = 0; // nothing after it is wanted yet: a walk resumed here asks again
        else if (e.allow > 0 && !e.stop.aborted) want(walk, next, opts, e.allow - 1);
      },
    });
    // A failure is the answer of whoever asks for the page (or nobody's).
    e.done.then((v) => { e.value = v; }, () => {}).finally(() => {
      from.removeEventListener('abort', abort);
      e.text = null;
      e.settled = true;
      if (e.early && e.early !== e.next) drop(walk, e.early); // the parse read no next link, or another
    });
    keepFor(key, e);
    return e;
  }

  /** Whether the page read ahead in `e` is read within `ms` (false: it failed, or is not read yet). */
  function readWithin(e, ms) {
    if (ms <= 0) return Promise.resolve(false);
    let timer;
    const late = new Promise((ok) => { timer = setTimeout(() => ok(false), ms); });
    return Promise.race([e.done.then(() => true, () => false), late]).finally(() => clearTimeout(timer));
  }

  /** `url` is wanted, and the `allow` pages after it: fetch what is not on its way yet. */
  function want(walk, url, opts, allow) {
    const e = ahead.get(`${walk}\n${url}`);
    if (!e) {
      if (!taken.has(`${walk}\n${url}`)) fetchAhead(walk, url, opts, allow);
      return;
    }
    if (allow <= e.allow) return;
    e.allow = allow;
    const onward = e.next || e.early;
    if (onward) want(walk, onward, opts, allow - 1);
  }

  /** fetchExtract of `url`, from a read made ahead when there is one; `allow` pages after it are
   * wanted. `walk` names what the rows are read for (rows, fields, redaction): reads ahead serve it alone. */
  async function walkPage(walk, url, opts, allow) {
    let at;
    try {
      at = bare(new URL(String(url), location.href).href).href;
    } catch {
      return agent.fetchExtract({ ...opts, url }); // its own error
    }
    const key = `${walk}\n${at}`;
    if (taken.size >= TAKEN_MAX) taken.clear();
    let e = ahead.get(key);
    if (e) want(walk, at, opts, allow);
    else if (allow > 0) e = fetchAhead(walk, at, opts, allow);
    taken.add(key);
    if (!e) return agent.fetchExtract({ ...opts, url });
    ahead.delete(key);
    clearTimeout(e.timer);
    const mine = [[key, e]];
    const since = pauses;
    recent = [recent[recent.length - 1] || [], mine];
    const first = await e.done;
    // The pages after it go with it, each whole and in order: one trip for several. Those on their way
    // are waited for up to half the pages wanted, so that trips carry several pages while the other
    // half are still read ahead during the trip and the engine's work on these: the site never idles.
    const later = [];
    let size = first.json.length;
    const batch = Math.ceil(allow / 2);
    const until = Date.now() + BATCH_WAIT_MS;
    for (let next = first.next; next && later.length < allow;) {
      const k = `${walk}\n${next}`;
      let f = ahead.get(k);
      if (f && !f.value && later.length < batch) {
        // A page that fails (or keeps the answer waiting) is the answer of whoever asks for it next.
        if (!(await readWithin(f, until - Date.now()))) break;
        f = ahead.get(k);
      }
      // After a pause (the host went meanwhile) nothing more is taken: this answer reaches no one.
      if (!f || !f.value || size + f.value.json.length > BATCH_CHARS || since !== pauses) break;
      ahead.delete(k);
      clearTimeout(f.timer);
      taken.add(k);
      mine.push([k, f]);
      later.push(f.value);
      size += f.value.json.length;
      next = f.value.next;
    }
    if (!later.length) return first;
    const json = `${first.json.slice(0, -1)},"later":[${later.map((v) => v.json).join(',')}]}`;
    return { json, final_url: first.final_url, later_urls: later.map((v) => v.final_url) };
  }

  /** Every read ahead, the one being waited for included, is aborted and forgotten (the walk asking for
   * them stopped); a later walk starts afresh. `keep` (the host that asked went): none is aborted nor
   * forgotten before its time, and none more starts. */
  function stopWalks(keep = false) {
    const stopped = ahead.size;
    if (keep) {
      paused = true;
      pauses += 1;
      for (const [k, e] of recent.flat()) {
        if (ahead.has(k)) continue;
        taken.delete(k);
        keepFor(k, e);
      }
      recent = [];
      return { stopped: 0, kept: ahead.size };
    }
    era.abort();
    era = new AbortController();
    for (const e of ahead.values()) clearTimeout(e.timer);
    ahead.clear();
    recent = [];
    return { stopped };
  }
  agent.commands.fetch_walk_stop = ({ keep = false } = {}) => stopWalks(keep === true);
  // A document left (kept in the back-forward cache, perhaps) holds no page read for a walk.
  globalThis.addEventListener?.('pagehide', () => stopWalks(), { capture: true });

  // `fetch_ms`: the fetch's own limit, inside the command's `timeout_ms`, so a slow server is `timeout`.
  agent.commands.fetch_extract = async ({ url, selector, fields, limit, max_chars: maxChars, next_selector: nextSelector = null, fetch_ms: fetchMs, timeout_ms: timeoutMs, cache_first: cacheFirst = false, ahead: allow = 0, redact = null, patterns = null }) => {
    const opts = { selector, fields, limit, maxChars, nextSelector, timeoutMs: Number.isInteger(fetchMs) ? fetchMs : timeoutMs };
    // Page 1 again (the check that fetching reads what rendering shows) is no step of a walk.
    if (cacheFirst === true) return agent.fetchExtract({ ...opts, url, cacheFirst: true });
    const n = Number.isInteger(allow) ? Math.max(0, Math.min(AHEAD_MAX, allow)) : 0;
    const walk = walkId(JSON.stringify([selector, fields, maxChars, nextSelector, redact, patterns]));
    paused = false;
    const { json, final_url: finalUrl, later_urls: laterUrls = [] } = await walkPage(walk, url, opts, n);
    return { json, final_url: finalUrl, later_urls: laterUrls };
  };
})();
