// fetch_details: several detail pages (follow) fetched and read at once, each as fetch_extract reads one
// (page/fetch.js: same origin, scripts searched, redaction), answered together in the order asked. A
// page that fails is its own entry: the others are read all the same.
//
// A run's commands may share places at the site (`pool`, `in_flight`): a page's request waits here for
// one and gives it back as soon as its body is read, so the site gets the next page while this one is
// parsed and while the answer travels back, yet never more than `in_flight` requests of the run at once.
(() => {
  const agent = globalThis.__tabpilotAgent.use('fetch_details', {
    needs: ['PageError', 'fetchExtract'],
    provides: ['commands.fetch_details', 'commands.fetch_details_stop'],
  });
  const BATCH_CHARS = 4_000_000; // one answer's JSON at most (as a walk's pages read ahead)
  const pools = new Map(); // pool -> {size, busy, queue: [{go, stop, ticket}]}: ticket, the command's

  const failure = (err) => {
    const known = err instanceof agent.PageError;
    const error = { code: known ? err.code : 'script_error', message: err && err.message ? err.message : String(err), data: known ? err.data ?? null : null };
    return JSON.stringify({ error });
  };

  function pump(p) {
    while (p.busy < p.size && p.queue.length) {
      p.busy += 1;
      p.queue.shift().go();
    }
  }

  /** A place at the site in pool `name` (the latest `size` asked for holds): resolves once it is taken. */
  function take(name, size, ticket) {
    let p = pools.get(name);
    if (!p) pools.set(name, (p = { size, busy: 0, queue: [] }));
    p.size = size;
    const taken = new Promise((go, stop) => p.queue.push({ go, stop, ticket }));
    pump(p);
    return taken.then(() => () => {
      p.busy -= 1;
      pump(p);
      if (!p.busy && !p.queue.length && pools.get(name) === p) pools.delete(name);
    });
  }

  /** One page's entry: its read, with its request's time at the site when it had to take a place. */
  async function readOne(url, opts, pool, size, ticket) {
    if (!pool) return { value: await agent.fetchExtract({ ...opts, url }), ms: null };
    const giveBack = await take(pool, size, ticket);
    const started = performance.now();
    let ms = null;
    const done = () => {
      if (ms !== null) return;
      ms = Math.round((performance.now() - started) * 10) / 10;
      giveBack();
    };
    try {
      return { value: await agent.fetchExtract({ ...opts, url, onText: done }), ms };
    } finally {
      done();
    }
  }

  // `fetch_ms`: each fetch's own limit, inside the command's `timeout_ms`, so a slow server is `timeout`.
  agent.commands.fetch_details = async ({ urls, selector, fields, limit, max_chars: maxChars, fetch_ms: fetchMs, timeout_ms: timeoutMs, pool = null, in_flight: inFlight = null, ticket = null }) => {
    if (!Array.isArray(urls) || !urls.length) throw new agent.PageError('invalid_params', 'urls must be a non-empty list');
    const opts = { selector, fields, limit, maxChars, timeoutMs: Number.isInteger(fetchMs) ? fetchMs : timeoutMs };
    const shared = typeof pool === 'string' && pool && Number.isInteger(inFlight) && inFlight > 0 ? pool : null;
    const read = await Promise.allSettled(urls.map((url) => readOne(url, opts, shared, inFlight, ticket)));
    let size = 0;
    const pages = [];
    const finals = [];
    for (const r of read) {
      if (r.status === 'fulfilled' && size + r.value.value.json.length > BATCH_CHARS && pages.length) {
        pages.push('{"deferred":true}'); // too big beside the others: asked for alone
        finals.push(null);
      } else if (r.status === 'fulfilled') {
        size += r.value.value.json.length;
        pages.push(r.value.ms === null ? `{"ok":${r.value.value.json}}` : `{"ok":${r.value.value.json},"ms":${r.value.ms}}`);
        finals.push(r.value.value.final_url);
      } else {
        pages.push(failure(r.reason));
        finals.push(null);
      }
    }
    return { pages, final_urls: finals };
  };

  /** Command `ticket` of `pool` was called off: its pages still waiting for a place make no request. */
  agent.commands.fetch_details_stop = ({ pool, ticket }) => {
    const p = pools.get(pool);
    if (!p) return { stopped: 0 };
    const waiting = p.queue.filter((w) => w.ticket === ticket);
    p.queue = p.queue.filter((w) => w.ticket !== ticket);
    for (const w of waiting) w.stop(new agent.PageError('cancelled', 'the command was called off before this page was asked for'));
    if (!p.busy && !p.queue.length && pools.get(pool) === p) pools.delete(pool);
    return { stopped: waiting.length };
  };
})();
