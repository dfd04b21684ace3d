// Several detail pages read without rendering them, for extract's `follow`: the page agent fetches and
// reads each as fetch_extract reads one (page/fetch_details.js), all in one trip: a command costs the
// browser a script injection and the native pipe a message, more than a small page's own reading. Each
// page's rows are accepted only once its final URL is within the sites the person allows; a page that
// fails costs its own entry, not the others.
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';
import { JsonText } from '../lib/reply.js';
import { checkUrl } from '../lib/sites.js';

const MARGIN_MS = 2_000; // as fetch_extract: a slow server ends as a timeout from the page
const MOST = 32;

export const name = 'fetch_details';
export const needsPilot = true;

const failure = (err) => JSON.stringify({ error: { code: err.code, message: err.message, data: err.data ?? null } });

export async function run(msg, { signal }) {
  const { urls } = msg;
  if (!Array.isArray(urls) || !urls.length || urls.length > MOST || !urls.every((u) => typeof u === 'string' && u)) {
    throw new CommandError(ERR.INVALID_PARAMS, `urls must be 1 to ${MOST} URLs of pages on the tab's origin`);
  }
  if (!Array.isArray(msg.fields) || msg.fields.length === 0) throw new CommandError(ERR.INVALID_PARAMS, 'fields must be a non-empty list');
  const limit = msg.limit ?? null;
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new CommandError(ERR.INVALID_PARAMS, 'limit must be a non-negative integer');
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.fetch_details.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const fetchMs = msg.fetch_ms == null ? timeoutMs : timeoutParam(msg.fetch_ms, timeoutMs);
  if (fetchMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'fetch_ms must be a positive integer');
  const pool = typeof msg.pool === 'string' && msg.pool ? msg.pool : null;
  const inFlight = msg.in_flight ?? null;
  if (inFlight !== null && (!Number.isInteger(inFlight) || inFlight < 1)) throw new CommandError(ERR.INVALID_PARAMS, 'in_flight must be a positive integer');
  // A URL outside the sites allowed is its own page's failure; the others are read.
  const entries = new Array(urls.length).fill(null);
  await Promise.all(urls.map((u, i) => (/^https?:/i.test(u) ? checkUrl(u, msg.tab_id ?? null).catch((err) => { entries[i] = failure(err); }) : null)));
  const asked = urls.map((u, i) => (entries[i] === null ? i : -1)).filter((i) => i >= 0);
  if (asked.length) {
    const args = { urls: asked.map((i) => urls[i]), selector: msg.selector ?? null, fields: msg.fields, limit, max_chars: MAX_RESULT_BYTES, fetch_ms: fetchMs, pool, in_flight: inFlight, ticket: msg.id };
    // This command called off (its run cancelled, the host gone) while its pages wait for a place at
    // the site: they make no request; nobody would read them.
    const stop = () => inPage({ tab_id: msg.tab_id ?? null }, 'fetch_stop', { pool, ticket: msg.id }).catch(() => {});
    if (pool && inFlight) signal?.addEventListener('abort', stop, { once: true });
    const out = await inPage({ ...msg, timeout_ms: timeoutMs + MARGIN_MS }, 'fetch_details', args, { signal });
    for (const [k, i] of asked.entries()) {
      entries[i] = out.pages[k];
      const final = out.final_urls[k];
      if (final) await checkUrl(final, out.tab_id).catch((err) => { entries[i] = failure(err); });
    }
  }
  return new JsonText(`{"pages":[${entries.join(',')}]}`);
}
