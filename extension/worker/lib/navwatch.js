// The worker's one watcher of tabs' main-frame navigations: a page action's possible navigation (a
// link click, a form submit: watchNavigation) and the load a command starts itself (navigate, a new
// tab, history, a restored snapshot: waitForLoad). One set of webNavigation listeners serves every
// watch: they are added the first time a watch starts and kept while this worker lives (adding and
// removing five listeners per action cost ~0.9 ms of a 3 ms click). They are not registered at top
// level on purpose: there they would wake the worker for every navigation in the browser.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';

// Main-frame webNavigation events a watch may hear, by their event name.
const FRAME_EVENTS = [
  'onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred',
  'onReferenceFragmentUpdated', 'onHistoryStateUpdated',
];

const watching = new Map(); // tabId -> Set of (event name, details) => void

function deliver(tabId, event, details) {
  const set = watching.get(tabId);
  if (set) for (const fn of [...set]) fn(event, details);
}

let installed = false;

function install() {
  if (installed) return;
  installed = true;
  const nav = chrome.webNavigation;
  for (const event of FRAME_EVENTS) {
    nav[event].addListener((d) => {
      if (d.frameId === 0) deliver(d.tabId, event, d);
    });
  }
  nav.onCreatedNavigationTarget.addListener((d) => deliver(d.sourceTabId, 'onCreatedNavigationTarget', d));
  chrome.tabs.onRemoved.addListener((tabId) => deliver(tabId, 'onRemoved', { tabId }));
}

/** Hear tab `tabId`'s main-frame events as `fn(event name, details)` until the returned stop(). */
export function listen(tabId, fn) {
  install();
  if (!watching.has(tabId)) watching.set(tabId, new Set());
  watching.get(tabId).add(fn);
  return () => {
    const set = watching.get(tabId);
    if (!set) return;
    set.delete(fn);
    if (!set.size) watching.delete(tabId);
  };
}

/** Watch tab `tabId`: `state` fills in as events arrive; `settled()` waits for the load; stop() ends it. */
export function watchNavigation(tabId) {
  const w = {
    state: { started: null, committed: null, loaded: false, failed: null, closed: false, opened: null },
    wake: () => {},
  };
  const { state } = w;
  const on = {
    onBeforeNavigate: (d) => Object.assign(state, { started: d.url, committed: null, loaded: false, failed: null }),
    onCommitted: (d) => {
      state.committed = d.url;
    },
    onDOMContentLoaded: () => {
      if (state.committed) state.loaded = true;
    },
    onErrorOccurred: (d) => {
      if (state.started && !(d.error === 'net::ERR_ABORTED' && d.url !== state.started)) state.failed = d.error;
    },
    onCreatedNavigationTarget: (d) => {
      state.opened = { tab_id: d.tabId, url: d.url };
    },
    onRemoved: () => {
      state.closed = true;
    },
  };
  const stop = listen(tabId, (event, d) => {
    if (!on[event]) return;
    on[event](d);
    w.wake();
  });
  return {
    tabId,
    state: w.state,
    /**
     * Wait until the navigation that started (or, with `expectStart`, is about to start) has loaded
     * its document, failed, or the tab closed; with `expectTab`, until the tab opened another one.
     * At most `ms`. Answers whether a document loaded.
     */
    async settled(ms, { expectStart = false, expectTab = false, signal = null } = {}) {
      const { state } = w;
      const end = Date.now() + ms;
      const done = expectTab
        ? () => state.opened || state.closed
        : () => state.loaded || state.failed || state.closed || (!state.started && !expectStart);
      while (!done()) {
        const left = end - Date.now();
        if (left <= 0 || signal?.aborted) return false;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, left);
          w.wake = () => {
            clearTimeout(timer);
            resolve();
          };
          signal?.addEventListener('abort', w.wake, { once: true });
        });
        signal?.removeEventListener('abort', w.wake);
        w.wake = () => {};
      }
      return state.loaded;
    },
    stop,
  };
}

/**
 * Resolve when the navigation we are about to start loads in tab `tabId`'s main frame. With `expect`
 * (the URL we load), only that navigation counts: a new tab's own about:blank may still be committing.
 * Rejects with NAVIGATION_FAILED or TAB_CLOSED; stop() ends the wait.
 */
export function waitForLoad(tabId, { expect = null } = {}) {
  let started = null; // the URL of our navigation, once it has begun
  let committed = null; // the documentId it committed
  let settle;
  const promise = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  promise.catch(() => {}); // it may fail before anyone awaits it; bounded() still sees the failure
  const on = {
    onBeforeNavigate: (d) => {
      if (!expect || d.url === expect) {
        started = d.url;
        committed = null;
      }
    },
    onCommitted: (d) => {
      // A new tab's about:blank may commit after our navigation began: it is not ours.
      if (!expect || (started && (d.url !== 'about:blank' || expect === d.url))) committed = d.documentId || true;
    },
    onCompleted: (d) => {
      if (committed && (committed === true || d.documentId === committed)) settle.resolve();
    },
    // A URL that differs only in its #fragment is a same-document navigation: no load happens; the
    // same goes for going back or forward to an entry the page made with history.pushState.
    onReferenceFragmentUpdated: () => {
      if (!started) settle.resolve();
    },
    onHistoryStateUpdated: () => {
      if (!started) settle.resolve();
    },
    onErrorOccurred: (d) => {
      // Starting ours aborts whatever the tab was loading before (net::ERR_ABORTED on its old URL).
      if (!started || (d.error === 'net::ERR_ABORTED' && d.url !== started)) return;
      const why = d.error === 'net::ERR_ABORTED'
        ? ' (no page to show: a download, a 204 answer, or the load was stopped; the tab keeps its previous page)'
        : '';
      settle.reject(new CommandError(ERR.NAVIGATION_FAILED, `loading ${d.url} failed: ${d.error}${why}`, {
        data: { tab_id: tabId, error: d.error },
      }));
    },
    onRemoved: () => {
      settle.reject(new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while loading`));
    },
  };
  const stop = listen(tabId, (event, d) => on[event]?.(d));
  return { promise, stop };
}
