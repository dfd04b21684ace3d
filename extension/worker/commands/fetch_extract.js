// Read a same-origin page without rendering it: the page agent fetches and parses it and extracts
// rows (page/fetch.js); the tab stays where it is. The rows are accepted only once the final URL, after
// redirects, is within the sites the person allows, the same rule a navigation meets.
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';
import { JsonText } from '../lib/reply.js';
import { checkUrl } from '../lib/sites.js';
import { walkIn } from '../lib/walks.js';

// Room for reaching the page on top of the fetch's own time limit, so that a slow server ends as a timeout from the page.
const MARGIN_MS = 2_000;

export const name = 'fetch_extract';
export const needsPilot = true;

export async function run(msg, { signal }) {
  if (typeof msg.url !== 'string' || !msg.url) throw new CommandError(ERR.INVALID_PARAMS, 'url must be the URL of a page on the tab\'s origin');
  if (!Array.isArray(msg.fields) || msg.fields.length === 0) throw new CommandError(ERR.INVALID_PARAMS, 'fields must be a non-empty list');
  const limit = msg.limit ?? null;
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new CommandError(ERR.INVALID_PARAMS, 'limit must be a non-negative integer');
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.fetch_extract.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const args = {
    url: msg.url, selector: msg.selector ?? null, fields: msg.fields, limit, max_chars: MAX_RESULT_BYTES,
    next_selector: msg.next_selector ?? null, cache_first: msg.cache_first === true,
    ahead: Number.isInteger(msg.ahead) && msg.ahead > 0 ? msg.ahead : 0,
  };
  // The page fetches only its own origin; the URL asked for meets the sites allowed before that too.
  if (/^https?:/i.test(msg.url)) await checkUrl(msg.url, msg.tab_id ?? null);
  // A walk cancelled while it waits for a page stops the page's reads ahead too: no request after it.
  // A host gone is no cancel: the walk keeps what it read for the run resumed (lib/walks.js).
  const stop = () => {
    if (signal.reason?.code !== ERR.EXTENSION_DISCONNECTED) inPage({ tab_id: msg.tab_id ?? null }, 'fetch_walk_stop', {}).catch(() => {});
  };
  if (args.ahead > 0) signal?.addEventListener('abort', stop, { once: true });
  const out = await inPage({ ...msg, timeout_ms: timeoutMs + MARGIN_MS }, 'fetch_extract', { ...args, fetch_ms: timeoutMs }, { signal });
  if (args.ahead > 0) walkIn(out.tab_id);
  // Every page's final URL, the pages read ahead that come with this one too (`later`).
  for (const url of [out.final_url, ...(out.later_urls || [])]) await checkUrl(url, out.tab_id);
  return new JsonText(out.json);
}
