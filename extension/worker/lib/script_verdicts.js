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
