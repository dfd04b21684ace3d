// Infinite scroll, one step: scroll to the end and wait for more rows (or a visible until_selector;
// without one, the feed's own end notice such as "No more posts": page/feed_end.js); a feed behind a
// "Load more" button has it pressed when the scroll started no request (page/scroll_load.js).
// The page waits with a MutationObserver for at most timeout_ms; running out of time is an answer
// (after == before), not an error: it is how the end of the list shows. With quiet_ms the end comes
// sooner, on the loader's own signals: the page reports that nothing changed for quiet_ms, and this
// worker, which sees the tab's requests (webRequest), accepts that only when none is in flight and none
// ended within quiet_ms; otherwise the page waits again, without scrolling, until the deadline.
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';
import { onTab } from '../lib/target.js';

// Room for reaching the page (injection, ~2 ms) on top of the page's own wait.
const MARGIN_MS = 5_000;
// What a feed loader fetches with; images and fonts load as rows scroll into view and say nothing.
const LOADER_TYPES = ['xmlhttprequest', 'script', 'other', 'sub_frame'];

export const name = 'scroll_load';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const waitMs = timeoutParam(msg.timeout_ms, DEFAULTS.scroll_load.timeout_ms);
  if (waitMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const quietMs = msg.quiet_ms ?? null;
  if (quietMs !== null && (!Number.isInteger(quietMs) || quietMs <= 0)) throw new CommandError(ERR.INVALID_PARAMS, 'quiet_ms must be a positive integer');
  const args = { row_selector: msg.row_selector, until_selector: msg.until_selector ?? null, wait_ms: waitMs, quiet_ms: quietMs };
  const tabId = await onTab(msg.tab_id, async (id) => (await chrome.tabs.get(id)).id);
  const net = watchRequests(tabId);
  const deadline = Date.now() + waitMs;
  const page = (more) => {
    const a = { ...args, ...more, wait_ms: Math.max(1, deadline - Date.now()) };
    return inPage({ ...msg, tab_id: tabId, timeout_ms: a.wait_ms + MARGIN_MS }, 'scroll_load', a, { signal });
  };
  try {
    let out = await page({});
    let button = false;
    if (out.button) {
      // A load-more control after the rows, and the scroll brought none: pressed only when the scroll
      // started no request (a scroll trigger that fired is waited for, not doubled by a click).
      button = true;
      out = await page({ scroll: false, press: net.started() === 0, before: out.before });
    }
    // Quiet with no rows: the end only with nothing in flight (a notice being confirmed included).
    while (quietMs !== null && out.quiet && out.after <= out.before && (!out.until_found || out.confirming)) {
      const left = deadline - Date.now();
      if (left <= 0 || net.idleFor(quietMs)) break;
      await net.settled(left);
      out = await page({ scroll: false, before: out.before });
    }
    return answer(out, net, button);
  } finally {
    net.stop();
  }
}

/** What the page saw, as the host reads it (`end_notice`: the feed's own end notice, no until_selector),
 * with the tab's loader requests during the call: `in_flight` still running as it answered, `requests`
 * started, `load_ms` from the first one's start to the last one's end (the site's own time). */
function answer(out, net, button) {
  const seen = { before: out.before, after: out.after, until_found: out.until_found };
  if (out.end_notice) seen.end_notice = true;
  if (out.at_end !== undefined) seen.at_end = out.at_end;
  if (button) seen.button = true;
  if (out.clicked) seen.clicked = true;
  if (out.grid) seen.grid = true;
  return { ...seen, in_flight: net.inflight(), requests: net.started(), load_ms: net.loadMs() };
}

/** The tab's loader requests from now on: how many are in flight, and when the last one ended. */
function watchRequests(tabId) {
  const web = chrome.webRequest;
  const inflight = new Set();
  let lastEnd = 0;
  let firstStart = 0;
  let started = 0;
  let wake = null;
  const filter = { urls: ['<all_urls>'], tabId, types: LOADER_TYPES };
  const begin = (d) => {
    inflight.add(d.requestId);
    started += 1;
    if (!firstStart) firstStart = Date.now();
  };
  const end = (d) => {
    if (!inflight.delete(d.requestId)) return;
    lastEnd = Date.now();
    if (inflight.size === 0 && wake) wake();
  };
  web.onBeforeRequest.addListener(begin, filter);
  web.onCompleted.addListener(end, filter);
  web.onErrorOccurred.addListener(end, filter);
  return {
    idleFor: (ms) => inflight.size === 0 && Date.now() - lastEnd >= ms,
    inflight: () => inflight.size,
    started: () => started,
    loadMs: () => (firstStart && lastEnd >= firstStart ? lastEnd - firstStart : 0),
    /** Resolves once nothing is in flight (at once if so already), or after `ms`. */
    settled: (ms) => new Promise((resolve) => {
      if (inflight.size === 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
      return undefined;
    }),
    stop: () => {
      web.onBeforeRequest.removeListener(begin);
      web.onCompleted.removeListener(end);
      web.onErrorOccurred.removeListener(end);
    },
  };
}
