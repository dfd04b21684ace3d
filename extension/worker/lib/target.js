// Which tab a command acts on: the tab_id it names, else the tab the user tracks, else the active tab
// of the last focused window (never one of TabPilot's own pages, e.g. the popup opened as a tab).
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';
import { checkTab, forgetRefusal, guardTab } from './sites.js';
import { getTrackedTabId, untrack } from './state.js';

const MAX_TAB_ID = 2 ** 31 - 1;

function isOwnPage(tab) {
  const url = tab.url || tab.pendingUrl || '';
  return url.startsWith(chrome.runtime.getURL(''));
}

/** Chrome's answer to a call naming a tab that is not there (it was never there, or was closed). */
function isNoTab(err) {
  return !(err instanceof CommandError) && /no tab with id/i.test(String(err && err.message ? err.message : err));
}

/**
 * Run `act(tabId)` on the tab a command names or implies and return what it returns. The tab is not
 * looked up first (a tabs.get costs ~0.5 ms): when it is not there, `act`'s own chrome.* call fails
 * with "No tab with id", and that becomes tab_not_found for a named tab, a fall back to the active
 * tab for a tracked one (tracking stops), tab_closed for the active one. With no tab at all,
 * `orElse()` may supply one (e.g. a new tab), else tab_not_found. Other failures reach the caller as
 * they are (see tabFailure).
 *
 * This is where the sites the person allows are enforced for every command: a tab whose page is
 * outside them is site_not_allowed (`checkSite: false` for navigate, which checks where it goes
 * instead), and with the command's `signal` the tab is guarded until the command ends (sites.js).
 */
export async function onTab(tabId, actOn, { orElse = null, signal = null, checkSite = true } = {}) {
  const act = async (id) => {
    if (checkSite) await checkTab(id);
    else await forgetRefusal(id); // it loads another page: a refusal on the one it leaves is moot
    await guardTab(id, signal);
    return actOn(id);
  };
  if (tabId !== undefined && tabId !== null) {
    if (!Number.isInteger(tabId)) throw new CommandError(ERR.INVALID_PARAMS, `tab_id must be an integer, got ${JSON.stringify(tabId)}`);
    const notFound = () => new CommandError(ERR.TAB_NOT_FOUND, `no tab with id ${tabId}: list tabs to see the open ones`);
    // Tab ids are non-negative int32; chrome.* calls reject others with a TypeError about the call.
    if (tabId < 0 || tabId > MAX_TAB_ID) throw notFound();
    try {
      return await act(tabId);
    } catch (err) {
      throw isNoTab(err) ? notFound() : err;
    }
  }
  const tracked = await getTrackedTabId();
  if (tracked !== null) {
    try {
      return await act(tracked);
    } catch (err) {
      if (!isNoTab(err)) throw err;
      await untrack(tracked); // the tracked tab was closed
    }
  }
  const tab = (await activeTab()) || (orElse && (await orElse()));
  if (!tab) throw new CommandError(ERR.TAB_NOT_FOUND, 'no tab to act on: open a page first, or pass tab_id');
  try {
    return await act(tab.id);
  } catch (err) {
    if (isNoTab(err)) throw new CommandError(ERR.TAB_CLOSED, `tab ${tab.id} was closed`);
    throw err;
  }
}

/** The active tab of the last focused window, or the most recently used other tab; null if none. */
export async function activeTab() {
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && !isOwnPage(active)) return active;
  // The active tab is ours (or there is no focused window): take the most recently used other tab.
  const scope = active ? { windowId: active.windowId } : {};
  const others = (await chrome.tabs.query(scope)).filter((t) => !isOwnPage(t));
  if (others.length) return others.reduce((a, b) => ((b.lastAccessed || 0) > (a.lastAccessed || 0) ? b : a));
  return null;
}

/**
 * A failed chrome.* call on tab `tabId` as a CommandError: tab_closed when the tab is gone by now
 * (e.g. executeScript's "Frame with ID 0 was removed."), else `fallbackCode` with `what(tab)` and
 * Chrome's message. Only failures pay for the tabs.get.
 */
export async function tabFailure(err, tabId, fallbackCode, what) {
  const message = String(err && err.message ? err.message : err);
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) return new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed`);
  return new CommandError(fallbackCode, `${what(tab)}: ${message}`);
}
