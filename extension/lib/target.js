// Which tab a command acts on: the tab_id it names, else the tab the user tracks, else the active tab
// of the last focused window (never one of TabPilot's own pages, e.g. the popup opened as a tab).
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';
import { getTrackedTabId, setTrackedTab } from './state.js';

function isOwnPage(tab) {
  const url = tab.url || tab.pendingUrl || '';
  return url.startsWith(chrome.runtime.getURL(''));
}

/** The tab a command names or implies; `null` when there is none and `allowNone` is set. */
export async function resolveTab(tabId, { allowNone = false } = {}) {
  if (tabId !== undefined && tabId !== null) {
    if (!Number.isInteger(tabId)) throw new CommandError(ERR.INVALID_PARAMS, `tab_id must be an integer, got ${JSON.stringify(tabId)}`);
    try {
      return await chrome.tabs.get(tabId);
    } catch {
      throw new CommandError(ERR.TAB_NOT_FOUND, `no tab with id ${tabId}: list tabs to see the open ones`);
    }
  }
  const tracked = await getTrackedTabId();
  if (tracked !== null) {
    try {
      return await chrome.tabs.get(tracked);
    } catch {
      await setTrackedTab(null); // the tracked tab was closed
    }
  }
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && !isOwnPage(active)) return active;
  // The active tab is ours (or there is no focused window): take the most recently used other tab.
  const scope = active ? { windowId: active.windowId } : {};
  const others = (await chrome.tabs.query(scope)).filter((t) => !isOwnPage(t));
  if (others.length) return others.reduce((a, b) => ((b.lastAccessed || 0) > (a.lastAccessed || 0) ? b : a));
  if (allowNone) return null;
  throw new CommandError(ERR.TAB_NOT_FOUND, 'no tab to act on: open a page first, or pass tab_id');
}

/** A failed chrome.* call on a tab as a CommandError: a vanished tab, or `fallbackCode`. */
export function tabFailure(err, tabId, fallbackCode, what) {
  const message = String(err && err.message ? err.message : err);
  if (/no tab with id/i.test(message)) {
    return new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed`);
  }
  return new CommandError(fallbackCode, `${what}: ${message}`);
}
