// Watching a tab's main frame for the navigation a page action may start (a link click, a form
// submit). One set of webNavigation listeners serves every watch: they are added the first time a
// watch starts and kept while this worker lives (adding and removing five listeners per action cost
// ~0.9 ms of a 3 ms click). They are not registered at top level on purpose: there they would wake
// the worker for every navigation in the browser.

const watching = new Map(); // tabId -> Set of watch states

function deliver(tabId, fn) {
  const set = watching.get(tabId);
  if (set) for (const w of set) fn(w);
}

let installed = false;

function install() {
  if (installed) return;
  installed = true;
  const nav = chrome.webNavigation;
  const frame = (fn) => (d) => {
    if (d.frameId === 0) deliver(d.tabId, (w) => fn(w.state, d) || w.wake());
  };
  nav.onBeforeNavigate.addListener(frame((state, d) => {
    Object.assign(state, { started: d.url, committed: null, loaded: false, failed: null });
  }));
  nav.onCommitted.addListener(frame((state, d) => {
    state.committed = d.url;
  }));
  nav.onDOMContentLoaded.addListener(frame((state) => {
    if (state.committed) state.loaded = true;
  }));
  nav.onErrorOccurred.addListener(frame((state, d) => {
    if (state.started && !(d.error === 'net::ERR_ABORTED' && d.url !== state.started)) state.failed = d.error;
  }));
  nav.onCreatedNavigationTarget.addListener((d) => deliver(d.sourceTabId, (w) => {
    w.state.opened = { tab_id: d.tabId, url: d.url };
    w.wake();
  }));
  chrome.tabs.onRemoved.addListener((tabId) => deliver(tabId, (w) => {
    w.state.closed = true;
    w.wake();
  }));
}

/** Watch tab `tabId`: `state` fills in as events arrive; `settled()` waits for the load; stop() ends it. */
export function watchNavigation(tabId) {
  install();
  const w = {
    state: { started: null, committed: null, loaded: false, failed: null, closed: false, opened: null },
    wake: () => {},
  };
  if (!watching.has(tabId)) watching.set(tabId, new Set());
  watching.get(tabId).add(w);
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
    stop() {
      const set = watching.get(tabId);
      if (!set) return;
      set.delete(w);
      if (!set.size) watching.delete(tabId);
    },
  };
}
