// Browser-state snapshots (save, load, list, delete): a site's localStorage, sessionStorage and cookies
// (httpOnly included, through chrome.cookies) and the tab's URL, kept by the extension. Answers carry
// names, URLs, times, sizes and counts only: the values never go to the agent.
import { DEFAULTS, ERR } from '../protocol.js';
import { drive } from '../lib/ahead.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { clearCookies, cookiesFor, restoreCookies } from '../lib/cookies.js';
import { CommandError } from '../lib/errors.js';
import { waitForLoad } from '../lib/navwatch.js';
import { checkUrl } from '../lib/sites.js';
import { deleteSnapshot, listSnapshots, readSnapshot, writeSnapshot } from '../lib/snapshots.js';
import { onTab, tabFailure } from '../lib/target.js';
import { checkNavigable } from '../lib/urls.js';

export const name = 'state';
export const needsPilot = true;

const NAME_RE = /^[\w.\- ]{1,100}$/u;

// Run in the page (isolated world: the same storage as the page's, out of its scripts' reach).
function readStorage() {
  const dump = (s) => {
    const out = {};
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      out[k] = s.getItem(k);
    }
    return out;
  };
  try {
    return { origin: location.origin, local: dump(localStorage), session: dump(sessionStorage) };
  } catch (err) {
    return { origin: location.origin, error: String(err && err.message) };
  }
}

function writeStorage(local, session) {
  try {
    localStorage.clear();
    sessionStorage.clear();
    for (const [k, v] of Object.entries(local)) localStorage.setItem(k, v);
    for (const [k, v] of Object.entries(session)) sessionStorage.setItem(k, v);
    return { origin: location.origin };
  } catch (err) {
    return { origin: location.origin, error: String(err && err.message) };
  }
}

function snapshotName(msg) {
  if (typeof msg.name !== 'string' || !NAME_RE.test(msg.name)) {
    throw new CommandError(ERR.INVALID_PARAMS, 'snapshot_name must be 1-100 letters, digits, spaces, dots, dashes or underscores');
  }
  return msg.name;
}

async function inTab(tabId, func, args = []) {
  const [done] = await chrome.scripting.executeScript({ target: { tabId }, func, args });
  const out = done ? done.result : null;
  if (!out || out.error || out.origin === 'null') {
    throw new CommandError(ERR.INVALID_PARAMS, `tab ${tabId} shows no web page whose storage can be used${out && out.error ? ` (${out.error})` : ''}: navigate to the site first`, { data: { tab_id: tabId } });
  }
  return out;
}

async function load(tabId, url, timeoutMs, signal) {
  const loaded = waitForLoad(tabId);
  drive(tabId);
  try {
    await chrome.tabs.update(tabId, { url });
    await bounded(loaded.promise, {
      timeoutMs,
      signal,
      onTimeout: () => new CommandError(ERR.TIMEOUT, `${url} did not finish loading within ${timeoutMs} ms`, { retryable: true, data: { tab_id: tabId } }),
    });
  } finally {
    loaded.stop();
  }
}

async function save(msg) {
  const snapName = snapshotName(msg);
  let tab = null;
  const found = await onTab(msg.tab_id, async (id) => {
    tab = await chrome.tabs.get(id);
    return inTab(id, readStorage);
  });
  const url = tab.url || '';
  const cookies = await cookiesFor(url);
  const snapshot = { url, origin: found.origin, local: found.local, session: found.session, cookies };
  const counts = {
    localStorage: Object.keys(found.local).length,
    sessionStorage: Object.keys(found.session).length,
    cookies: cookies.length,
  };
  const meta = { name: snapName, url, origin: found.origin, timestamp: new Date().toISOString(), size_bytes: JSON.stringify(snapshot).length, counts };
  await writeSnapshot(snapName, snapshot, meta);
  return { snapshot_name: snapName, url, timestamp: meta.timestamp, size_bytes: meta.size_bytes, counts };
}

async function restore(msg, signal) {
  const snapName = snapshotName(msg);
  const snapshot = await readSnapshot(snapName);
  if (!snapshot) throw new CommandError(ERR.SNAPSHOT_NOT_FOUND, `no snapshot named ${JSON.stringify(snapName)}: list_states shows the saved ones`);
  const url = checkNavigable(snapshot.url);
  await checkUrl(url); // before its cookies are written
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.state.timeout_ms) || DEFAULTS.state.timeout_ms;
  const includeUrl = msg.include_url !== false;
  return onTab(msg.tab_id, async (tabId) => {
    const tab = await chrome.tabs.get(tabId);
    signal.throwIfAborted();
    await clearCookies(url);
    const cookies = await restoreCookies(snapshot.cookies || []);
    let navigated = false;
    let here = null;
    try {
      here = new URL(tab.url || '').origin;
    } catch {
      // no URL yet: not the snapshot's origin
    }
    // Storage belongs to an origin: a tab elsewhere must open the snapshot's page to receive it.
    if (here !== snapshot.origin) {
      await load(tabId, url, timeoutMs, signal);
      navigated = true;
    }
    await inTab(tabId, writeStorage, [snapshot.local || {}, snapshot.session || {}]);
    // The page now loaded started with the old state; loading the saved URL lets it start with this one.
    if (includeUrl) {
      await load(tabId, url, timeoutMs, signal);
      navigated = true;
    }
    const now = await chrome.tabs.get(tabId);
    return {
      snapshot_name: snapName,
      tab_id: tabId,
      url: now.url || '',
      navigated,
      restored: {
        localStorage: Object.keys(snapshot.local || {}).length,
        sessionStorage: Object.keys(snapshot.session || {}).length,
        cookies,
      },
    };
  });
}

export async function run(msg, { signal }) {
  try {
    switch (msg.op) {
      case 'save':
        return await save(msg);
      case 'load':
        return await restore(msg, signal);
      case 'list':
        return { snapshots: Object.values(await listSnapshots()).sort((a, b) => (a.name < b.name ? -1 : 1)) };
      case 'delete': {
        const snapName = snapshotName(msg);
        if (!(await deleteSnapshot(snapName))) throw new CommandError(ERR.SNAPSHOT_NOT_FOUND, `no snapshot named ${JSON.stringify(snapName)}`);
        return { deleted: snapName };
      }
      default:
        throw new CommandError(ERR.INVALID_PARAMS, 'op must be save, load, list or delete');
    }
  } catch (err) {
    if (err instanceof CommandError) throw err;
    if (!Number.isInteger(msg.tab_id)) throw new CommandError(ERR.SCRIPT_ERROR, `cannot use the page's state: ${err && err.message}`);
    throw await tabFailure(err, msg.tab_id, ERR.SCRIPT_ERROR, (tab) => `cannot use the state of tab ${tab.id} (${tab.url || 'no url'})`);
  }
}
