// Telemetry the agent can read while AI Web Pilot is on: the pages' errors (a MAIN-world content script
// registered at document_start, main_world/errors_hook.js) and their network requests (webRequest,
// observed only: method, URL, type, status, timing; no headers are ever requested, so none, and no
// bodies, are seen; query values named like secrets are replaced). Both are switched on and off with the pilot. The webRequest listeners are added
// here rather than at the worker's top level on purpose: top-level ones would wake the worker for every
// request the browser makes; while the pilot is on the native port keeps the worker alive anyway.
// Requests live in per-tab ring buffers in this worker's memory: telemetry is news, not state.

import { SECRET_QUERY_NAME } from '../protocol.js';

const SCRIPT_ID = 'tabpilot-telemetry';
const MAX_PER_TAB = 500;
const MAX_IN_FLIGHT = 2000;
const MAX_URL = 2000;

// Sequence numbers grow across worker lives too: a cursor from an earlier worker stays below them.
let nextSeq = Date.now() * 1000;
const tabs = new Map(); // tabId -> { items: [], evicted: 0, lastEvicted: 0 }
const inFlight = new Map(); // requestId -> item under construction
let listening = false;

function bufferOf(tabId) {
  let buf = tabs.get(tabId);
  if (!buf) {
    buf = { items: [], evicted: 0, lastEvicted: 0 };
    tabs.set(tabId, buf);
  }
  return buf;
}

function record(item, tabId) {
  const buf = bufferOf(tabId);
  item.seq = ++nextSeq;
  buf.items.push(item);
  if (buf.items.length > MAX_PER_TAB) {
    buf.lastEvicted = buf.items.shift().seq;
    buf.evicted += 1;
  }
}

const FILTER = { urls: ['<all_urls>'] };

// Query values whose names say they are secrets (a GET login form puts the password in the URL).
const SECRET_PARAM = new RegExp(SECRET_QUERY_NAME, 'i'); // one list with the host's (wire/secret_names.py)

/** `url` cut to MAX_URL with the values of secret-looking query parameters replaced. */
function cleanUrl(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    return String(raw).slice(0, MAX_URL);
  }
  let changed = false;
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(key)) {
      url.searchParams.set(key, '[REDACTED]');
      changed = true;
    }
  }
  return (changed ? url.href : raw).slice(0, MAX_URL);
}

function onBefore(d) {
  if (d.tabId < 0) return; // the browser's and extensions' own requests
  if (inFlight.size >= MAX_IN_FLIGHT) inFlight.delete(inFlight.keys().next().value);
  inFlight.set(d.requestId, {
    tabId: d.tabId,
    item: { time: Math.round(d.timeStamp), method: d.method, url: cleanUrl(d.url), type: d.type },
  });
}

function finish(d, extra) {
  const open = inFlight.get(d.requestId);
  if (!open) return;
  inFlight.delete(d.requestId);
  record({ ...open.item, ...extra, duration_ms: Math.max(0, Math.round(d.timeStamp - open.item.time)) }, open.tabId);
}

const onCompleted = (d) => finish(d, { status: d.statusCode, from_cache: Boolean(d.fromCache) });
const onError = (d) => finish(d, { status: 0, error: d.error });
const onRedirect = (d) => finish(d, { status: d.statusCode, redirected_to: cleanUrl(String(d.redirectUrl || '')) });
const onTabRemoved = (tabId) => tabs.delete(tabId);

let chain = Promise.resolve();

/** Network listening and the errors script on (pilot on) or off (pilot off: buffers dropped). */
export function syncTelemetry(on) {
  // One change at a time: two registrations of the same script id in flight would collide.
  chain = chain.then(() => apply(on)).catch((err) => console.warn('TabPilot: cannot switch telemetry:', err));
  return chain;
}

async function apply(on) {
  if (on && !listening) {
    chrome.webRequest.onBeforeRequest.addListener(onBefore, FILTER);
    chrome.webRequest.onCompleted.addListener(onCompleted, FILTER);
    chrome.webRequest.onErrorOccurred.addListener(onError, FILTER);
    chrome.webRequest.onBeforeRedirect.addListener(onRedirect, FILTER);
    chrome.tabs.onRemoved.addListener(onTabRemoved);
    listening = true;
  } else if (!on && listening) {
    chrome.webRequest.onBeforeRequest.removeListener(onBefore);
    chrome.webRequest.onCompleted.removeListener(onCompleted);
    chrome.webRequest.onErrorOccurred.removeListener(onError);
    chrome.webRequest.onBeforeRedirect.removeListener(onRedirect);
    chrome.tabs.onRemoved.removeListener(onTabRemoved);
    listening = false;
    tabs.clear();
    inFlight.clear();
  }
  const registered = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (on && !registered.length) {
    await chrome.scripting.registerContentScripts([{
      id: SCRIPT_ID,
      js: ['main_world/errors_hook.js'],
      matches: ['<all_urls>'],
      runAt: 'document_start',
      world: 'MAIN',
      allFrames: false,
      persistAcrossSessions: false,
    }]);
  } else if (!on && registered.length) {
    await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  }
}

/** Items of `buf` after `since` (at most `limit`), the cursor to pass next, and how many were lost. */
export function page(buf, since, limit) {
  const after = buf.items.filter((i) => i.seq > since);
  const items = after.slice(0, limit);
  const cursor = items.length ? items[items.length - 1].seq : since;
  // Items after `since` that the ring buffer had to let go before this read.
  const dropped = buf.lastEvicted > since ? Math.min(buf.evicted, buf.lastEvicted - since) : 0;
  return { items, cursor, dropped, more: after.length > items.length };
}

/** The network requests recorded for `tabId` after `since`. */
export function networkSince(tabId, since, limit) {
  return { ...page(tabs.get(tabId) || { items: [], evicted: 0, lastEvicted: 0 }, since, limit), recording: listening };
}
