// Up to `steps` steps run in the page, each as soon as the last one's rows came; the tab's requests are
// watched across all of them, so "nothing in flight" is a fact of the whole call, not of one step.
// The end comes on the loader's own signals: a step reports that nothing changed for quiet_ms, and this
// worker, which sees the tab's requests (webRequest), accepts that only when none is in flight and none
// ended within quiet_ms; otherwise the page waits again, without scrolling, until the deadline.
// One step that confirms the feed's own word that it ended (its end notice shown, or the loader it had
// gone) waits less than quiet_ms once the feed has shown how soon its moves start their requests: half
// again the slowest start seen on this page, never under START_FLOOR_MS (PRESS_FLOOR_MS for a feed that
// loads only on its control). A feed whose notice showed while rows still came, or one that has not
// shown two starts yet, gets quiet_ms.
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';
import { onTab } from '../lib/target.js';

// Room for reaching the page (injection, ~2 ms) on top of the page's own wait.
const MARGIN_MS = 5_000;
// What a feed loader fetches with; images and fonts load as rows scroll into view and say nothing.
const LOADER_TYPES = ['xmlhttprequest', 'script', 'other', 'sub_frame'];
// Under this, a scroll listener's throttle or a polling interval (htmx: 200 ms) could start the request later.
const START_FLOOR_MS = 250;
// A click handler starts its request at once; this covers a busy page's delay in running it.
const PRESS_FLOOR_MS = 100;
// The feed has to have shown this many request starts before a confirming step waits less than quiet_ms.
const START_SEEN = 2;
// Per tab, page and row selector: what this feed has shown (see `remember`).
const feeds = new Map();
const MAX_FEEDS = 64;

export const name = 'scroll_load';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const waitMs = timeoutParam(msg.timeout_ms, DEFAULTS.scroll_load.timeout_ms);
  if (waitMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const quietMs = msg.quiet_ms ?? null;
  if (quietMs !== null && (!Number.isInteger(quietMs) || quietMs <= 0)) throw new CommandError(ERR.INVALID_PARAMS, 'quiet_ms must be a positive integer');
  const steps = msg.steps ?? DEFAULTS.scroll_load.steps;
  if (!Number.isInteger(steps) || steps < 1) throw new CommandError(ERR.INVALID_PARAMS, 'steps must be a positive integer');
  const limit = msg.limit ?? null;
  const tab = await onTab(msg.tab_id, (id) => chrome.tabs.get(id));
  const tabId = tab.id;
  const feed = remember(`${tabId}\n${tab.url}\n${msg.row_selector}`);
  const args = { row_selector: msg.row_selector, until_selector: msg.until_selector ?? null, quiet_ms: quietMs, limit };
  const net = watchRequests(tabId);
  let deadline = 0;
  const page = (more) => {
    const a = { ...args, steps: 1, ...more, wait_ms: Math.max(1, deadline - Date.now()) };
    return inPage({ ...msg, tab_id: tabId, timeout_ms: a.wait_ms * a.steps + MARGIN_MS }, 'scroll_load', a, { signal });
  };
  try {
    let done = 0;
    let out = null;
    let button = false;
    for (;;) {
      deadline = Date.now() + waitMs;
      // The step that confirms the feed's word waits as long as the feed has shown it needs.
      const confirming = done === 0 && msg.confirm === true;
      const short = confirming ? quietFor(feed, quietMs) : null;
      out = await page({ steps: steps - done, press: feed.press, had_hooks: feed.hooks > 0, short_ms: short });
      done += out.steps;
      learn(feed, out.moves, net);
      if (out.button) {
        // A load-more control after the rows, and the scroll brought none: pressed only when the scroll
        // started no request (a scroll trigger that fired is waited for, not doubled by a click).
        button = true;
        const press = net.startedSince(out.moves.at(-1)?.at ?? 0) === 0;
        out = await page({ scroll: false, press, before: out.before });
        learn(feed, out.moves, net);
        if (out.clicked && out.after > out.before) feed.press = true;
      }
      if (out.clicked) button = true;
      // Quiet with no rows: the end only with nothing in flight (a notice being confirmed included).
      const quiet = out.short ? short : quietMs;
      while (quiet !== null && out.quiet && out.after <= out.before && (!out.until_found || out.confirming)) {
        const left = deadline - Date.now();
        if (left <= 0 || net.idleFor(quiet)) break;
        await net.settled(left);
        out = await page({ scroll: false, before: out.before, quiet_ms: quiet });
      }
      if (out.had_hooks) feed.hooks = 1;
      // Fewer rows than where the notice showed: the page was loaded again. An end notice that more
      // rows followed says nothing on this page any more.
      if (feed.noticeAt !== null && out.after < feed.noticeAt) feed.noticeAt = null;
      if (feed.noticeAt !== null && out.after > feed.noticeAt) feed.lied = true;
      if (out.until_found) feed.noticeAt = out.after;
      const grew = out.after > out.before;
      const gone = feed.hooks > 0 && out.hooks === 0;
      if (!grew || gone || done >= steps || out.until_found || out.grid || (limit !== null && out.after >= limit)) break;
    }
    return answer(out, net, button, done, feed);
  } finally {
    net.stop();
  }
}

/** This feed's memory on its page: whether its batches come by pressing its control, how many request
 * starts its presses and its scrolls brought and the slowest of each, whether it had a loader hook,
 * and where its end notice showed (and whether rows followed it). */
function remember(key) {
  const seen = feeds.get(key) || {
    press: false, starts: { press: { n: 0, slowest: 0 }, scroll: { n: 0, slowest: 0 } }, hooks: 0, noticeAt: null, lied: false,
  };
  feeds.delete(key);
  if (feeds.size >= MAX_FEEDS) feeds.delete(feeds.keys().next().value);
  feeds.set(key, seen);
  return seen;
}

/** The quiet a confirming step waits (see the top). A feed whose every batch came by pressing its
 * control (its scrolls started none) has shown how soon a press starts a request, and that a scroll
 * does not: no scroll listener's throttle to wait out, so its floor is PRESS_FLOOR_MS. */
function quietFor(feed, quietMs) {
  const { press, scroll } = feed.starts;
  if (quietMs === null || feed.lied || press.n + scroll.n < START_SEEN) return quietMs;
  const pressed = scroll.n === 0;
  const slowest = Math.max(press.slowest, scroll.slowest);
  return Math.min(quietMs, Math.max(pressed ? PRESS_FLOOR_MS : START_FLOOR_MS, Math.ceil(1.5 * slowest)));
}

/** Each move's first request start after it (before the next move) is how soon this feed answers one. */
function learn(feed, moves, net) {
  (moves || []).forEach((move, i) => {
    const next = i + 1 < moves.length ? moves[i + 1].at : Infinity;
    const start = net.firstStartIn(move.at, next);
    if (start === null) return;
    const seen = feed.starts[move.press ? 'press' : 'scroll'];
    seen.n += 1;
    seen.slowest = Math.max(seen.slowest, start - move.at);
  });
}

/** What the page saw, as the host reads it (`end_notice`: the feed's own end notice, no until_selector),
 * with the tab's loader requests during the call: `in_flight` still running as it answered, `requests`
 * started, `load_ms` from the first one's start to the last one's end (the site's own time); `steps`
 * taken, and `loader_gone` when the feed had a loader hook and none is left. */
function answer(out, net, button, steps, feed) {
  const seen = { before: out.before, after: out.after, until_found: out.until_found, steps };
  if (out.end_notice) seen.end_notice = true;
  if (out.at_end !== undefined) seen.at_end = out.at_end;
  if (button) seen.button = true;
  if (out.clicked) seen.clicked = true;
  if (out.grid) seen.grid = true;
  if (feed.hooks > 0 && out.hooks === 0) seen.loader_gone = true;
  return { ...seen, in_flight: net.inflight(), requests: net.started(), load_ms: net.loadMs() };
}

/** The tab's loader requests from now on: how many are in flight, and when the last one ended. */
function watchRequests(tabId) {
  const web = chrome.webRequest;
  const inflight = new Set();
  let lastEnd = 0;
  const starts = []; // when each loader request started
  let wake = null;
  const filter = { urls: ['<all_urls>'], tabId, types: LOADER_TYPES };
  const begin = (d) => {
    inflight.add(d.requestId);
    starts.push(Date.now());
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
    started: () => starts.length,
    /** How many started at or after `at`. */
    startedSince: (at) => starts.filter((t) => t >= at).length,
    /** The first start in [from, to), or null. */
    firstStartIn: (from, to) => starts.find((t) => t >= from && t < to) ?? null,
    loadMs: () => (starts.length && lastEnd >= starts[0] ? lastEnd - starts[0] : 0),
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
