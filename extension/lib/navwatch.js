// Watching a tab's main frame for the navigation a page action may start (a link click, a form
// submit). The listeners live only for one command: at top level they would wake the worker for
// every navigation in the browser.

/** Watch tab `tabId`: `state` fills in as events arrive; `settled()` waits for the load; stop() ends it. */
export function watchNavigation(tabId) {
  const nav = chrome.webNavigation;
  const state = { started: null, committed: null, loaded: false, failed: null, closed: false };
  let wake = null;
  const mine = (d) => d.tabId === tabId && d.frameId === 0;
  const on = (fn) => (d) => {
    if (!mine(d)) return;
    fn(d);
    if (wake) wake();
  };
  const listeners = [
    [nav.onBeforeNavigate, on((d) => {
      Object.assign(state, { started: d.url, committed: null, loaded: false, failed: null });
    })],
    [nav.onCommitted, on((d) => {
      state.committed = d.url;
    })],
    [nav.onDOMContentLoaded, on(() => {
      if (state.committed) state.loaded = true;
    })],
    [nav.onErrorOccurred, on((d) => {
      if (state.started && !(d.error === 'net::ERR_ABORTED' && d.url !== state.started)) state.failed = d.error;
    })],
    [chrome.tabs.onRemoved, (closedId) => {
      if (closedId !== tabId) return;
      state.closed = true;
      if (wake) wake();
    }],
  ];
  for (const [event, fn] of listeners) event.addListener(fn);
  return {
    tabId,
    state,
    /**
     * Wait until the navigation that started (or, with `expectStart`, is about to start) has loaded
     * its document, failed, or the tab closed; at most `ms`. Answers whether it got that far.
     */
    async settled(ms, { expectStart = false, signal = null } = {}) {
      const end = Date.now() + ms;
      const done = () => state.loaded || state.failed || state.closed || (!state.started && !expectStart);
      while (!done()) {
        const left = end - Date.now();
        if (left <= 0 || signal?.aborted) return false;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      return state.loaded;
    },
    stop() {
      for (const [event, fn] of listeners) event.removeListener(fn);
    },
  };
}
