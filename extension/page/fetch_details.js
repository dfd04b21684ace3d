// fetch_details: several detail pages (follow) fetched and read at once, each as fetch_extract reads one
// (page/fetch.js: same origin, scripts searched, redaction), answered together in the order asked. A
// page that fails is its own entry: the others are read all the same. With a pool, the run's commands
// share its places at the site (page/places.js), and each page's read says how long its request took.
(() => {
  const agent = globalThis.__tabpilotAgent.use('fetch_details', {
    needs: ['PageError', 'fetchExtract'],
    provides: ['commands.fetch_details'],
  });
  const BATCH_CHARS = 4_000_000; // one answer's JSON at most (as a walk's pages read ahead)

  const failure = (err) => {
    const known = err instanceof agent.PageError;
    const error = { code: known ? err.code : 'script_error', message: err && err.message ? err.message : String(err), data: known ? err.data ?? null : null };
    return JSON.stringify({ error });
  };

  // `fetch_ms`: each fetch's own limit, inside the command's `timeout_ms`, so a slow server is `timeout`.
  agent.commands.fetch_details = async ({ urls, selector, fields, limit, max_chars: maxChars, fetch_ms: fetchMs, timeout_ms: timeoutMs, pool = null, in_flight: inFlight = null, ticket = null }) => {
    if (!Array.isArray(urls) || !urls.length) throw new agent.PageError('invalid_params', 'urls must be a non-empty list');
    const place = typeof pool === 'string' && pool && Number.isInteger(inFlight) && inFlight > 0 ? { pool, size: inFlight, ticket } : null;
    const opts = { selector, fields, limit, maxChars, timeoutMs: Number.isInteger(fetchMs) ? fetchMs : timeoutMs, place };
    const read = await Promise.allSettled(urls.map((url) => agent.fetchExtract({ ...opts, url })));
    let size = 0;
    const pages = [];
    const finals = [];
    for (const r of read) {
      if (r.status === 'fulfilled' && size + r.value.json.length > BATCH_CHARS && pages.length) {
        pages.push('{"deferred":true}'); // too big beside the others: asked for alone
        finals.push(null);
      } else if (r.status === 'fulfilled') {
        size += r.value.json.length;
        pages.push(`{"ok":${r.value.json}}`);
        finals.push(r.value.final_url);
      } else {
        pages.push(failure(r.reason));
        finals.push(null);
      }
    }
    return { pages, final_urls: finals };
  };
})();
