// The page agent's verdicts on script files (page/script_names.js: whether a script's text names a
// secret marker), kept while the worker lives so that a library met on every document of a site is read
// once, not once a document. A verdict is keyed by a SHA-256 of the markers and the script's text (or of
// the HTTP cache entry it came from, when a strong validator names it: page/script_names.js), and kept
// per site (the sender's origin; none for an opaque one): one site's pages cannot answer for
// another's. Losing them (the worker stopped) only costs reading the files again.
const KEPT = 2_000;
const KEY = /^[0-9a-f]{64}$/;
const verdicts = new Map(); // origin + key -> named (true/false), oldest first

/**
 * A `script_verdict` message from the page agent in a document of `origin`: `{key}` asks ({named} when
 * known, else {}), `{key, named}` tells. Anything else is ignored.
 */
export function scriptVerdict(origin, msg) {
  if (typeof origin !== 'string' || !origin || origin === 'null' || !msg || typeof msg.key !== 'string' || !KEY.test(msg.key)) return {};
  const at = `${origin} ${msg.key}`;
  if (typeof msg.named === 'boolean') {
    verdicts.delete(at);
    verdicts.set(at, msg.named);
    while (verdicts.size > KEPT) verdicts.delete(verdicts.keys().next().value);
    return {};
  }
  return verdicts.has(at) ? { named: verdicts.get(at) } : {};
}

// Which file a script's cache entry holds is told by its headers (page/script_names.js's entryOf), and
// the browser shows them to the worker as a page loads the file. Reading them again from the HTTP
// cache costs a fetched page's check 20-35 ms before the first verdict can be asked for (the tab's
// other work goes first), against one message here. So while the pilot is on, the headers that name a
// script's entry are kept as pages load it, the latest for each URL and site (the HTTP cache keeps a
// copy per site, and the latest load is the copy it holds now, whichever tab made it), and a page
// agent is told those of its own site. Only these headers are read; none leaves the worker but to a
// page agent of that site, which has them from the cache anyway.
const HEADERS = ['date', 'etag', 'last-modified', 'content-length', 'content-encoding', 'content-type'];
const SEEN_MOST = 2_000;
const seen = new Map(); // origin + url -> {url, status, headers}, oldest first
let listening = false;

const key = (origin, url) => `${origin} ${url}`;

function onScript(d) {
  // A page's load: the browser's and extensions' own have no web origin as their initiator.
  if (!/^https?:/.test(d.initiator || '') || !Array.isArray(d.responseHeaders)) return;
  let headers = {};
  for (const h of d.responseHeaders) {
    const name = String(h.name).toLowerCase();
    if (HEADERS.includes(name) && typeof h.value === 'string') headers[name] = h.value;
  }
  const at = key(d.initiator, d.url);
  const known = seen.get(at);
  seen.delete(at);
  if (d.statusCode === 304) {
    // The server confirmed the copy the cache holds: a 304 carries its validators, not the entry's
    // length and type, so the entry seen before stands (its date moved) if the validators agree.
    const same = (n) => !headers[n] || known?.headers[n] === headers[n];
    if (!known || !(headers.etag || headers['last-modified']) || !same('etag') || !same('last-modified')) return;
    headers = { ...known.headers, ...(headers.date ? { date: headers.date } : {}) };
  }
  seen.set(at, { url: d.url, status: d.statusCode === 304 ? known.status : d.statusCode, headers });
  while (seen.size > SEEN_MOST) seen.delete(seen.keys().next().value);
}

/** Keeping the script files' headers on (pilot on) or off (pilot off: all forgotten). */
export function syncScriptHeaders(on) {
  if (on && !listening) {
    chrome.webRequest.onCompleted.addListener(onScript, { urls: ['<all_urls>'], types: ['script'] }, ['responseHeaders']);
  } else if (!on && listening) {
    chrome.webRequest.onCompleted.removeListener(onScript);
    seen.clear();
  }
  listening = on;
}

/** A `scripts_seen` message from the page agent in a document of `origin`: the headers of the script
 * files that site's pages loaded last, `{files: [{url, status, headers}]}`. */
export function scriptsSeen(origin) {
  const prefix = key(origin, '');
  const files = [];
  if (typeof origin === 'string' && /^https?:/.test(origin)) for (const [k, f] of seen) if (k.startsWith(prefix)) files.push(f);
  return { files };
}
