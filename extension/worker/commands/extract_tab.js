// Read one page in a background tab (a row's detail page, for extract's `follow`): open it beside the
// run's tab without activating it, wait for its load (and wait_for), read the fields with the page
// agent's own extract (redaction included), and close the tab whatever happened: an error, a timeout
// or a cancel. The site scope is checked before loading and watched through redirects.
// With a `pool`, a tab that read cleanly stays open for the pool's next page (loading a page in an
// open tab costs far less than opening one); release_tabs closes the pool's tabs at the end.
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { drive } from '../lib/ahead.js';
import { forget, owns, remember } from '../lib/bgtabs.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { waitForLoad } from '../lib/navwatch.js';
import { inPage } from '../lib/page.js';
import { checkUrl, guardTab } from '../lib/sites.js';
import { checkNavigable } from '../lib/urls.js';

export const name = 'extract_tab';
export const needsPilot = true;

// What a soft `expect` wait leaves of the deadline for reading the page afterwards.
const READ_MARGIN_MS = 1_000;

export async function run(msg, { signal }) {
  const url = checkNavigable(msg.url);
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.extract_tab.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  if (!Array.isArray(msg.fields) || msg.fields.length === 0) throw new CommandError(ERR.INVALID_PARAMS, 'fields must be a non-empty list');
  await checkUrl(url);
  const end = Date.now() + timeoutMs;
  const pool = typeof msg.pool === 'string' && msg.pool ? msg.pool : null;
  const tab = await backgroundTab(msg, pool);
  let kept = false;
  let status = null;
  // The main frame's last response (a redirect's 3xx is followed by the final one).
  const onHeaders = (d) => {
    if (d.tabId === tab.id && d.frameId === 0) status = d.statusCode;
  };
  chrome.webRequest.onHeadersReceived.addListener(onHeaders, { urls: ['<all_urls>'], types: ['main_frame'], tabId: tab.id });
  const loaded = waitForLoad(tab.id, { expect: url });
  try {
    await guardTab(tab.id, signal); // a redirect off the allowed sites aborts this command
    drive(tab.id);
    await chrome.tabs.update(tab.id, { url });
    await bounded(loaded.promise, {
      timeoutMs,
      signal,
      onTimeout: () => new CommandError(ERR.TIMEOUT, `${url} did not finish loading within ${timeoutMs} ms`, { retryable: true }),
    });
    const landed = (await chrome.tabs.get(tab.id)).url || url;
    if (status !== null && status >= 400) {
      throw new CommandError(ERR.NAVIGATION_FAILED, `${url} answered HTTP ${status}`, { data: { status, url: landed } });
    }
    // A redirect elsewhere (a login page) is for the host to judge: it gets the URL, and no rows.
    if (withoutHash(landed) !== withoutHash(url)) return { rows: [], count: 0, warnings: [], landed, status, redirected: true };
    const left = () => Math.max(end - Date.now(), 1);
    // The page agent's own wait and extract (the page times out first, with what it saw).
    if (msg.wait_for) {
      const wait = { selector: msg.wait_for, state: 'visible', wait_ms: left() };
      await inPage({ tab_id: tab.id, timeout_ms: left() + 1_000 }, 'wait_for', wait, { signal });
    }
    if (msg.expect) await settle(tab.id, msg.expect, end, signal);
    const read = { selector: msg.selector || ':root', fields: msg.fields, limit: 1, max_chars: MAX_RESULT_BYTES, virtual: false, resume: false };
    const out = await inPage({ tab_id: tab.id, timeout_ms: left() }, 'extract', read, { signal });
    // `landed`, not `url`: the host takes a `url` in an answer for where the run's own tab is.
    const { url: _read, tab_id: _tab, ...value } = typeof out?.text === 'string' ? JSON.parse(out.text) : out;
    kept = pool !== null && !signal?.aborted;
    return { ...value, landed, status, redirected: false, ...(kept ? { kept_tab_id: tab.id } : {}) };
  } finally {
    loaded.stop();
    chrome.webRequest.onHeadersReceived.removeListener(onHeaders);
    if (!kept) {
      await chrome.tabs.remove(tab.id).catch(() => {}); // already gone: nothing to close
      if (pool) await forget(pool, tab.id);
    }
  }
}

// The tab to load the page in: the pool's tab the host names (never one of the person's tabs, never the
// active one), or a new one beside the run's tab, never activated, blank until the listeners are in
// place. A pool's new tab is recorded before anything can fail, so release_tabs finds it in any case.
async function backgroundTab(msg, pool) {
  if (Number.isInteger(msg.reuse_tab_id)) {
    const tab = pool ? await chrome.tabs.get(msg.reuse_tab_id).catch(() => null) : null;
    if (!tab || tab.active || !(await owns(pool, tab.id))) {
      throw new CommandError(ERR.INVALID_PARAMS, `tab ${msg.reuse_tab_id} is not a background tab of this pool`);
    }
    return tab;
  }
  const opener = Number.isInteger(msg.tab_id) ? await chrome.tabs.get(msg.tab_id).catch(() => null) : null;
  const where = opener ? { windowId: opener.windowId, openerTabId: opener.id } : {};
  const tab = await chrome.tabs.create({ url: 'about:blank', active: false, ...where });
  if (pool) await remember(pool, tab.id);
  return tab;
}

// Wait for `selector` (something the page's scripts may still draw) until shortly before `end`; not
// seeing it is no error: the page is then read as it is.
async function settle(tabId, selector, end, signal) {
  const waitMs = end - Date.now() - READ_MARGIN_MS;
  if (waitMs <= 0) return;
  try {
    const wait = { selector, state: 'attached', wait_ms: waitMs };
    await inPage({ tab_id: tabId, timeout_ms: waitMs + READ_MARGIN_MS / 2 }, 'wait_for', wait, { signal });
  } catch (err) {
    if (!(err instanceof CommandError) || err.code !== ERR.TIMEOUT) throw err;
  }
}

function withoutHash(href) {
  try {
    const u = new URL(href);
    u.hash = '';
    return u.href;
  } catch {
    return href;
  }
}
