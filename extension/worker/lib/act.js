// One page action (click, press, check, ...) with its consequences: when the action started a
// navigation, the answer waits for the new document (bounded by the command's timeout) and says
// `navigated: true` with the new URL, so the next command meets the new page, not the old one.
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from './deadline.js';
import { actingOn } from './ahead.js';
import { CommandError } from './errors.js';
import { watchNavigation } from './navwatch.js';
import { inPage } from './page.js';

/** The page command's arguments: the wire message without its envelope. */
export function argsOf(msg) {
  const { id, type, tab_id: tabId, timeout_ms: timeoutMs, ...args } = msg;
  return args;
}

export async function act(msg, name, { signal } = {}) {
  const started = Date.now();
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS[msg.type].timeout_ms) || DEFAULTS[msg.type].timeout_ms;
  let watch = null;
  let release = null;
  let out;
  try {
    try {
      out = await inPage(msg, name, argsOf(msg), { signal, fallbackTimeoutMs: timeoutMs, onTab: (id) => {
        watch ??= watchNavigation(id);
        release ??= actingOn(id); // a navigation the action starts makes the tab one the pilot drives
      } });
    } catch (err) {
      // The document went away before it could answer: that is the navigation the action started.
      const unloaded = watch && watch.state.started && !watch.state.closed
        && (err.code === ERR.TAB_CLOSED || err.code === ERR.SCRIPT_ERROR);
      if (!unloaded) throw err;
      out = { nav: 'cross', tab_id: watch.tabId };
    }
    const { nav, nav_url: navUrl, ...rest } = out;
    if (nav === 'tab') {
      await watch.settled(Math.max(timeoutMs - (Date.now() - started), 0), { expectTab: true, signal });
      return watch.state.opened ? { ...rest, opened_tab: watch.state.opened } : rest;
    }
    if (nav === 'cross' || nav === 'submit' || watch.state.started) {
      const left = Math.max(timeoutMs - (Date.now() - started), 0);
      const loaded = await watch.settled(left, { expectStart: nav === 'cross' || nav === 'submit', signal });
      signal?.throwIfAborted();
      if (watch.state.closed) throw new CommandError(ERR.TAB_CLOSED, `tab ${watch.tabId} was closed after ${name}`, { data: { tab_id: watch.tabId } });
      const tab = await chrome.tabs.get(watch.tabId).catch(() => null);
      const result = { ...rest, navigated: true, url: tab ? tab.url : watch.state.committed || navUrl || '' };
      if (!loaded) result.loaded = false; // still loading at the deadline: wait_for before acting on it
      if (watch.state.failed) result.navigation_error = watch.state.failed;
      return result;
    }
    if (nav === 'same' && navUrl) return { ...rest, url: navUrl };
    return rest;
  } finally {
    watch?.stop();
    release?.();
  }
}
