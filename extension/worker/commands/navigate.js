// Load a URL in a tab and answer once the main frame has finished loading: the answer waits for
// webNavigation events, bounded by timeout_ms, never for a fixed time.
import { DEFAULTS, ERR } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { drive } from '../lib/ahead.js';
import { waitForLoad } from '../lib/navwatch.js';
import { checkUrl } from '../lib/sites.js';
import { onTab, tabFailure } from '../lib/target.js';
import { checkNavigable } from '../lib/urls.js';

export const name = 'navigate';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const url = checkNavigable(msg.url);
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.navigate.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  await checkUrl(url); // where it goes, not what the tab shows now: the agent never reads that page
  let tabId = null;
  let loaded = null;
  const start = async (id) => {
    tabId = id;
    signal.throwIfAborted(); // e.g. the pilot went off while the tab was being chosen
    loaded = waitForLoad(id);
    drive(id);
    try {
      await chrome.tabs.update(id, { url });
    } catch (err) {
      loaded.stop();
      throw err;
    }
  };
  try {
    await onTab(msg.tab_id, start, { orElse: () => chrome.tabs.create({ url: 'about:blank', active: true }), signal, checkSite: false });
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.NAVIGATION_FAILED, (tab) => `cannot navigate tab ${tab.id}`);
  }
  try {
    await bounded(loaded.promise, {
      timeoutMs,
      signal,
      onTimeout: () =>
        new CommandError(ERR.TIMEOUT, `${url} did not finish loading within ${timeoutMs} ms`, {
          retryable: true,
          data: { tab_id: tabId },
        }),
    });
  } finally {
    loaded.stop();
  }
  const done = await chrome.tabs.get(tabId).catch(() => null);
  if (!done) throw new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while loading ${url}`);
  return { tab_id: tabId, url: done.url || url, title: done.title || '' };
}
