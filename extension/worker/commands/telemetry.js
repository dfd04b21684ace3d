// What a tab recorded since a cursor: its errors (console.error, uncaught exceptions, unhandled
// rejections; read from the page's buffer) or its network requests (from the worker's buffer).
// Answers {items, cursor, dropped, more, recording}: pass `cursor` as `since` next time. The page's
// messages and stacks are what its own code wrote, so they go through the page agent's redaction
// (secret values the page holds, secret-shaped text) before they leave; so do request URLs.
import { DEFAULTS, ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';
import { onTab, tabFailure } from '../lib/target.js';
import { networkSince } from '../lib/telemetry.js';

const TEXT_FIELDS = ['message', 'stack', 'source'];

/** `items` with their free-form texts scrubbed in the page of tab `tabId` (url too for requests). */
async function scrubbed(msg, tabId, items, fields) {
  if (!items.length) return items;
  const texts = items.flatMap((i) => fields.map((f) => (typeof i[f] === 'string' ? i[f] : '')));
  const { texts: clean } = await inPage({ ...msg, tab_id: tabId }, 'scrub', { texts });
  return items.map((item, k) => {
    const out = { ...item };
    fields.forEach((f, j) => {
      if (typeof item[f] === 'string') out[f] = clean[k * fields.length + j];
    });
    return out;
  });
}

export const name = 'telemetry';
export const needsPilot = true;

const MAX_LIMIT = 1000;

// Runs in the page's MAIN world, where main_world/errors_hook.js keeps its buffer.
function readErrors(since, limit) {
  const log = window.__tabpilotErrors;
  if (!log) return { items: [], cursor: since, dropped: 0, more: false, recording: false };
  const after = log.items.filter((i) => i.seq > since);
  const items = after.slice(0, limit);
  const dropped = log.lastEvicted > since ? Math.min(log.evicted, log.lastEvicted - since) : 0;
  return { items, cursor: items.length ? items[items.length - 1].seq : since, dropped, more: after.length > items.length, recording: true };
}

export async function run(msg) {
  if (msg.kind !== 'errors' && msg.kind !== 'network') throw new CommandError(ERR.INVALID_PARAMS, 'kind must be errors or network');
  const since = msg.since ?? DEFAULTS.telemetry.since;
  if (!Number.isSafeInteger(since) || since < 0) throw new CommandError(ERR.INVALID_PARAMS, 'since must be a cursor from an earlier answer (or 0)');
  const limit = msg.limit ?? DEFAULTS.telemetry.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new CommandError(ERR.INVALID_PARAMS, `limit must be from 1 to ${MAX_LIMIT}`);
  if (msg.kind === 'network') {
    const tab = await onTab(msg.tab_id, (id) => chrome.tabs.get(id));
    const got = networkSince(tab.id, since, limit);
    let items;
    try {
      items = await scrubbed(msg, tab.id, got.items, ['url', 'redirected_to']);
    } catch {
      // A page the agent cannot reach (a browser page) cannot scrub: queries are dropped instead.
      const bare = (u) => (typeof u === 'string' ? u.replace(/[?#][\s\S]*$/, (m) => `${m[0]}[REDACTED]`) : u);
      items = got.items.map((i) => ({ ...i, url: bare(i.url), ...(i.redirected_to ? { redirected_to: bare(i.redirected_to) } : {}) }));
    }
    return { ...got, items, tab_id: tab.id };
  }
  let tabId = null;
  try {
    const [done] = await onTab(msg.tab_id, (id) => {
      tabId = id;
      return chrome.scripting.executeScript({ target: { tabId: id }, world: 'MAIN', func: readErrors, args: [since, limit] });
    });
    const got = done.result;
    return { ...got, items: await scrubbed(msg, tabId, got.items, TEXT_FIELDS), tab_id: tabId };
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot read the errors of tab ${tab.id} (${tab.url || 'no url'})`);
  }
}
