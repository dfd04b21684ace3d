// Go to the next page of a list: the page finds the next control (missing or disabled: the end),
// clicks it and watches the rows change in place; meanwhile this worker watches the tab's main frame,
// since a link that navigates takes the page's script down with its document. Whichever happens first
// answers; nothing is a fixed sleep, everything is bounded by timeout_ms.
//   {outcome: "navigated", reason: null | "redirected", url}  a new document loaded (redirected: the
//                                                             server answered with a redirect on the way)
//   {outcome: "redrawn", reason: null, url}                   the rows changed in place
//   {outcome: "end", reason: "missing" | "disabled" | "unchanged", url}
// With `fields`, a new page's rows come in the same answer (`page`, extract's answer): read by the
// page the moment a redraw in place completes (page/redraw.js), or by the worker in the new document:
// one round trip a page instead of two. With `pages` > 1, a table that redraws in place is clicked
// through several pages in the page itself (`more`, `end`), within BATCH_MS and BATCH_CHARS.
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { injectAgent, inPage } from '../lib/page.js';
import { JsonText } from '../lib/reply.js';
import { onTab } from '../lib/target.js';

// Room for reaching the page (injection, ~2 ms) on top of the page's own wait.
const MARGIN_MS = 5_000;
// One command clicks no further page once it has run this long or read this much JSON (well below
// the 64 MiB a message to the host may hold): a cancel waits for at most one such batch, and the
// host's loop gets the rows in pieces it converts quickly.
const BATCH_MS = 500;
const BATCH_CHARS = 4_000_000;

export const name = 'paginate';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.paginate.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const deadline = Date.now() + timeoutMs + MARGIN_MS;
  // The tab is settled first: the navigation watch must be on it before the click.
  const tabId = await onTab(msg.tab_id, async (id) => (await chrome.tabs.get(id)).id, { signal });
  const nav = watchMainFrame(tabId, msg.row_selector);
  try {
    const args = {
      next_selector: msg.next_selector, row_selector: msg.row_selector, wait_ms: timeoutMs,
      fields: Array.isArray(msg.fields) && msg.fields.length ? msg.fields : null, limit: msg.limit ?? null,
      virtual: msg.virtual ?? null, max_chars: MAX_RESULT_BYTES, pages: msg.pages ?? DEFAULTS.paginate.pages, budget_ms: BATCH_MS, max_batch: BATCH_CHARS,
    };
    const inPageCall = inPage({ ...msg, tab_id: tabId, timeout_ms: timeoutMs + MARGIN_MS }, 'paginate', args, { signal })
      .then((value) => ({ value }), (error) => ({ error }));
    const first = await Promise.race([inPageCall, nav.began.then(() => null), nav.closed]);
    // A navigation that began wins over whatever the departing document said or failed to say.
    if (first === null || nav.hasBegun() || (first.value && first.value.outcome === 'leaving')) {
      const url = await bounded(Promise.race([nav.completed, nav.closed]), {
        timeoutMs: Math.max(1, deadline - Date.now()),
        signal,
        onTimeout: () => new CommandError(ERR.TIMEOUT, `the next page did not finish loading within ${timeoutMs} ms`, { retryable: true, data: { tab_id: tabId } }),
      });
      return withRows(msg, tabId, { outcome: 'navigated', reason: nav.redirected() ? 'redirected' : null, url }, deadline, signal);
    }
    if (first.error) {
      // The tab was there a moment ago: "no such tab" now means it was closed under the click.
      if (first.error.code === ERR.TAB_NOT_FOUND) throw new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while going to the next page`, { data: { tab_id: tabId } });
      throw first.error;
    }
    if (first.value instanceof JsonText) return first.value; // redrawn in place, with its rows
    const { outcome, reason, url } = first.value;
    return withRows(msg, tabId, { outcome, reason, url }, deadline, signal);
  } finally {
    nav.stop();
  }
}

/**
 * `moved` with the new page's rows (`page`) when the command asked for them (`fields`) and it reached
 * a new page. A read that fails here leaves `page` out: the host reads the page itself then, with its
 * own retries, rather than clicking Next again.
 */
async function withRows(msg, tabId, moved, deadline, signal) {
  if (!Array.isArray(msg.fields) || !msg.fields.length || moved.outcome === 'end') return moved;
  const args = { selector: msg.row_selector, fields: msg.fields, limit: msg.limit ?? null, max_chars: MAX_RESULT_BYTES, virtual: msg.virtual ?? null };
  try {
    const page = await inPage({ tab_id: tabId, timeout_ms: Math.max(1_000, deadline - Date.now()) }, 'extract', args, { signal });
    if (!(page instanceof JsonText)) return moved;
    const head = JSON.stringify(moved).slice(0, -1);
    return new JsonText(`${head},"page":${page.text}}`);
  } catch (err) {
    if (signal?.aborted) throw err;
    return moved;
  }
}

// Runs in the new document (isolated world), self-contained: once the document is parsed, does it
// hold a row? (Before that, a table may be only half there.)
function rowsOnceParsed(selector) {
  const holds = () => {
    try {
      return document.querySelector(selector) !== null;
    } catch {
      return false;
    }
  };
  if (document.readyState !== 'loading') return holds();
  return new Promise((resolve) => document.addEventListener('DOMContentLoaded', () => resolve(holds()), { once: true }));
}

/**
 * Follow tab `tabId`'s main frame from now on: `began` resolves when a new document starts loading,
 * `completed` with its final URL once it has loaded (or once its DOM is parsed and holds a row),
 * `closed` rejects if the tab goes away. Listeners exist only for this wait (at top level they would
 * wake the worker for every navigation).
 */
function watchMainFrame(tabId, rowSelector) {
  const nav = chrome.webNavigation;
  const deferred = () => {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // it may settle before anyone awaits it; the races still see it
    return { promise, resolve, reject };
  };
  const began = deferred();
  const completed = deferred();
  const closed = deferred();
  let started = null; // the URL asked for
  let committed = null; // {documentId, url, qualifiers}
  const mine = (d) => d.tabId === tabId && d.frameId === 0;
  const frameOf = (d) => (d.documentId ? { tabId, documentIds: [d.documentId] } : { tabId, frameIds: [0] });
  const listeners = [
    [nav.onBeforeNavigate, (d) => {
      if (!mine(d)) return;
      started = d.url;
      committed = null;
      began.resolve();
    }],
    [nav.onCommitted, (d) => {
      if (!mine(d)) return;
      committed = { documentId: d.documentId, url: d.url, qualifiers: d.transitionQualifiers || [] };
      began.resolve();
      // The next command (an extract) will want the page agent: inject it while the page is still
      // loading, so that it costs nothing after the load instead of two more trips into the page.
      // Not awaited: the next command waits for it (or injects it itself if it failed). Once per
      // document: a tab the pilot drives gets it there already (ahead.js).
      injectAgent(tabId, d.documentId);
      const target = frameOf(d);
      // Rows already in the parsed document are what the next extract reads: no need to wait for
      // images and other subresources (the load event) as well. Asked now, answered at
      // DOMContentLoaded from inside the page: no event and no extra trip after it. Without rows, the
      // load decides.
      const url = d.url;
      chrome.scripting.executeScript({ target, func: rowsOnceParsed, args: [rowSelector], injectImmediately: true })
        .then(([first]) => {
          if (first && first.result === true) completed.resolve(url);
        }, () => {});
    }],
    [nav.onCompleted, (d) => {
      if (mine(d) && committed && (!committed.documentId || d.documentId === committed.documentId)) completed.resolve(d.url);
    }],
    [nav.onErrorOccurred, (d) => {
      if (!mine(d) || !started) return;
      completed.reject(new CommandError(ERR.NAVIGATION_FAILED, `loading the next page (${d.url}) failed: ${d.error}`, { data: { tab_id: tabId, error: d.error } }));
    }],
    [chrome.tabs.onRemoved, (closedId) => {
      if (closedId === tabId) closed.reject(new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while going to the next page`, { data: { tab_id: tabId } }));
    }],
  ];
  for (const [event, fn] of listeners) event.addListener(fn);
  const bare = (url) => (url || '').split('#')[0];
  return {
    began: began.promise,
    completed: completed.promise,
    closed: closed.promise,
    hasBegun: () => started !== null || committed !== null,
    redirected: () => Boolean(committed) && (committed.qualifiers.includes('server_redirect') || (started !== null && bare(started) !== bare(committed.url))),
    stop: () => {
      for (const [event, fn] of listeners) event.removeListener(fn);
    },
  };
}
