// What a tab recorded since a cursor: its errors (console.error, uncaught exceptions, unhandled
// rejections; read from the page's buffer) or its network requests (from the worker's buffer).
// Answers {items, cursor, dropped, more, recording}: pass `cursor` as `since` next time.
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { onTab, tabFailure } from '../lib/target.js';
import { networkSince } from '../lib/telemetry.js';

export const name = 'telemetry';
export const needsPilot = true;

const MAX_LIMIT = 1000;

// Runs in the page's MAIN world, where telemetry/errors_hook.js keeps its buffer.
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
  const since = msg.since === undefined || msg.since === null ? 0 : msg.since;
  if (!Number.isSafeInteger(since) || since < 0) throw new CommandError(ERR.INVALID_PARAMS, 'since must be a cursor from an earlier answer (or 0)');
  const limit = msg.limit === undefined || msg.limit === null ? 100 : msg.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new CommandError(ERR.INVALID_PARAMS, `limit must be from 1 to ${MAX_LIMIT}`);
  if (msg.kind === 'network') {
    const tab = await onTab(msg.tab_id, (id) => chrome.tabs.get(id));
    return { ...networkSince(tab.id, since, limit), tab_id: tab.id };
  }
  let tabId = null;
  try {
    const [done] = await onTab(msg.tab_id, (id) => {
      tabId = id;
      return chrome.scripting.executeScript({ target: { tabId: id }, world: 'MAIN', func: readErrors, args: [since, limit] });
    });
    return { ...done.result, tab_id: tabId };
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot read the errors of tab ${tab.id} (${tab.url || 'no url'})`);
  }
}
