// Load a URL in a tab and answer once the main frame has finished loading: the answer waits for
// webNavigation events, bounded by timeout_ms, never for a fixed time.
import { ERR } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { checkUrl } from '../lib/sites.js';
import { onTab, tabFailure } from '../lib/target.js';
import { checkNavigable } from '../lib/urls.js';

export const name = 'navigate';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const url = checkNavigable(msg.url);
  const timeoutMs = timeoutParam(msg.timeout_ms, 30_000);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  await checkUrl(url); // where it goes, not what the tab shows now: the agent never reads that page
  let tabId = null;
  let loaded = null;
  const start = async (id) => {
    tabId = id;
    signal.throwIfAborted(); // e.g. the pilot went off while the tab was being chosen
    loaded = waitForLoad(id);
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

/**
 * Resolve when the navigation we are about to start loads in tab `tabId`'s main frame. With `expect`
 * (the URL we load), only that navigation counts: a new tab's own about:blank may still be committing.
 * The listeners are added only for this wait (at top level they would wake the worker for every
 * navigation in the browser) and removed by stop().
 */
export function waitForLoad(tabId, { expect = null } = {}) {
  const nav = chrome.webNavigation;
  let started = null; // the URL of our navigation, once it has begun
  let committed = null; // the documentId it committed
  let settle;
  const promise = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  promise.catch(() => {}); // it may fail before anyone awaits it; bounded() still sees the failure
  const mine = (d) => d.tabId === tabId && d.frameId === 0;
  const listeners = [
    [nav.onBeforeNavigate, (d) => {
      if (mine(d) && (!expect || d.url === expect)) {
        started = d.url;
        committed = null;
      }
    }],
    [nav.onCommitted, (d) => {
      // A new tab's about:blank may commit after our navigation began: it is not ours.
      if (mine(d) && (!expect || (started && (d.url !== 'about:blank' || expect === d.url)))) committed = d.documentId || true;
    }],
    [nav.onCompleted, (d) => {
      if (mine(d) && committed && (committed === true || d.documentId === committed)) settle.resolve();
    }],
    // A URL that differs only in its #fragment is a same-document navigation: no load happens; the
    // same goes for going back or forward to an entry the page made with history.pushState.
    [nav.onReferenceFragmentUpdated, (d) => {
      if (mine(d) && !started) settle.resolve();
    }],
    [nav.onHistoryStateUpdated, (d) => {
      if (mine(d) && !started) settle.resolve();
    }],
    [nav.onErrorOccurred, (d) => {
      // Starting ours aborts whatever the tab was loading before (net::ERR_ABORTED on its old URL).
      if (!mine(d) || !started || (d.error === 'net::ERR_ABORTED' && d.url !== started)) return;
      const why = d.error === 'net::ERR_ABORTED'
        ? ' (no page to show: a download, a 204 answer, or the load was stopped; the tab keeps its previous page)'
        : '';
      settle.reject(new CommandError(ERR.NAVIGATION_FAILED, `loading ${d.url} failed: ${d.error}${why}`, {
        data: { tab_id: tabId, error: d.error },
      }));
    }],
    [chrome.tabs.onRemoved, (closedId) => {
      if (closedId === tabId) settle.reject(new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while loading`));
    }],
  ];
  for (const [event, fn] of listeners) event.addListener(fn);
  return {
    promise,
    stop: () => {
      for (const [event, fn] of listeners) event.removeListener(fn);
    },
  };
}
