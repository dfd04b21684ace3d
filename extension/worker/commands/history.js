// Back, forward or reload in a tab, answered once the page it lands on has loaded (the same wait as
// navigate: webNavigation events, bounded by timeout_ms).
import { DEFAULTS, ERR } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { drive } from '../lib/ahead.js';
import { waitForLoad } from '../lib/navwatch.js';
import { onTab, tabFailure } from '../lib/target.js';

export const name = 'history';
export const needsPilot = true;

// Back and forward go one entry, as the page's own history.back() does, when the page can see that
// entry (the Navigation API lists this origin's entries). chrome.tabs.goBack alone would skip every
// entry the browser marks as added without a user gesture (all of an agent's), and with none left
// fails with "Cannot find a next page in history.". It is the fallback for entries of other origins
// and pages that cannot run scripts.
async function step(id, delta) {
  const [done] = await chrome.scripting
    .executeScript({
      target: { tabId: id },
      injectImmediately: true,
      func: (d) => {
        if (typeof navigation === 'undefined' || !(d < 0 ? navigation.canGoBack : navigation.canGoForward)) return false;
        history.go(d);
        return true;
      },
      args: [delta],
    })
    .catch(() => [null]);
  if (done && done.result === true) return;
  await (delta < 0 ? chrome.tabs.goBack(id) : chrome.tabs.goForward(id));
}

const OPS = {
  back: (id) => step(id, -1),
  forward: (id) => step(id, 1),
  reload: (id) => chrome.tabs.reload(id),
};

export async function run(msg, { signal }) {
  const go = OPS[msg.op];
  if (!go) throw new CommandError(ERR.INVALID_PARAMS, `op must be one of ${Object.keys(OPS).join(', ')}`);
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.history.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  let tabId = null;
  let loaded = null;
  const start = async (id) => {
    tabId = id;
    signal.throwIfAborted();
    loaded = waitForLoad(id);
    drive(id);
    try {
      await go(id);
    } catch (err) {
      loaded.stop();
      throw err;
    }
  };
  try {
    await onTab(msg.tab_id, start, { signal });
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    // "Cannot find a next page in history." and its "previous" twin.
    if (/cannot find a (next|previous) page/i.test(String(err.message))) {
      throw new CommandError(ERR.NAVIGATION_FAILED, `tab ${tabId} has no ${msg.op === 'back' ? 'previous' : 'next'} page in its history (${err.message})`, {
        data: { tab_id: tabId },
      });
    }
    throw await tabFailure(err, tabId, ERR.NAVIGATION_FAILED, (tab) => `cannot go ${msg.op} in tab ${tab.id}`);
  }
  try {
    await bounded(loaded.promise, {
      timeoutMs,
      signal,
      onTimeout: () =>
        new CommandError(ERR.TIMEOUT, `the page did not finish loading within ${timeoutMs} ms after ${msg.op}`, {
          retryable: true,
          data: { tab_id: tabId },
        }),
    });
  } finally {
    loaded.stop();
  }
  const done = await chrome.tabs.get(tabId).catch(() => null);
  if (!done) throw new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed during ${msg.op}`);
  return { tab_id: tabId, url: done.url || '', title: done.title || '' };
}
