// Open a tab, optionally on a URL (checked like navigate's, and waited for like it), optionally in the
// background. An active new tab also becomes the tracked tab when one is tracked, so commands without
// a tab_id follow the agent to it.
import { DEFAULTS, ERR } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { drive } from '../lib/ahead.js';
import { waitForLoad } from '../lib/navwatch.js';
import { checkUrl, guardTab } from '../lib/sites.js';
import { getTrackedTabId, setTrackedTab } from '../lib/state.js';
import { checkNavigable } from '../lib/urls.js';

export const name = 'new_tab';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const url = msg.url === undefined || msg.url === null ? null : checkNavigable(msg.url);
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.new_tab.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const active = msg.active !== false;
  if (url) await checkUrl(url);
  // Blank first, then the URL: the load listeners are in place before our navigation starts.
  const tab = await chrome.tabs.create({ url: 'about:blank', active });
  await guardTab(tab.id, signal); // a redirect off the allowed sites stops it
  drive(tab.id);
  if (url) {
    const loaded = waitForLoad(tab.id, { expect: url });
    try {
      await chrome.tabs.update(tab.id, { url });
      await bounded(loaded.promise, {
        timeoutMs,
        signal,
        onTimeout: () =>
          new CommandError(ERR.TIMEOUT, `${url} did not finish loading within ${timeoutMs} ms`, {
            retryable: true,
            data: { tab_id: tab.id },
          }),
      });
    } finally {
      loaded.stop();
    }
  }
  if (active && (await getTrackedTabId()) !== null) await setTrackedTab(tab);
  const done = await chrome.tabs.get(tab.id).catch(() => null);
  if (!done) throw new CommandError(ERR.TAB_CLOSED, `tab ${tab.id} was closed while loading`);
  return { tab_id: done.id, url: done.url || done.pendingUrl || '', title: done.title || '', active: done.active };
}
