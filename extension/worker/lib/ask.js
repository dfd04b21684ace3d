// Asks for secrets a run needs, typed by the person on TabPilot's own page (ask.html) in a tab of
// this browser. What they type is held only here, in the worker's memory, until the host collects it
// (never chrome.storage, never a log); an ask nobody collects is forgotten after LINGER_MS.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';

const ASK_URL = chrome.runtime.getURL('ask.html');
const LINGER_MS = 600_000;
const MAX_VALUE_CHARS = 4096;

// ask_id -> {names, workflow, site, tabId, values, gone, waiters, timer}
const asks = new Map();

/** Open the page asking for `names` in a new active tab; answer its ask_id and tab id. */
export async function openAsk({ names, workflow, site }) {
  const id = crypto.randomUUID();
  const ask = { names, workflow, site, tabId: null, values: null, gone: false, waiters: new Set() };
  ask.timer = setTimeout(() => forget(id), LINGER_MS);
  asks.set(id, ask);
  const tab = await chrome.tabs.create({ url: `${ASK_URL}#${id}`, active: true });
  ask.tabId = tab.id;
  if (tab.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
  return { ask_id: id, tab_id: tab.id };
}

/** The values the person sent for this ask, once they have (rejects if its page was closed first). */
export function waitAnswer(id) {
  const ask = asks.get(id);
  if (!ask) return Promise.reject(new CommandError(ERR.INVALID_PARAMS, 'no such ask (it was answered, closed or expired)'));
  return new Promise((resolve, reject) => {
    const settle = () => {
      if (ask.values) resolve(take(id));
      else if (ask.gone) reject(new CommandError(ERR.CANCELLED, 'the person closed the page without sending it'));
      else return false;
      return true;
    };
    if (!settle()) ask.waiters.add(settle);
  });
}

/** Close the ask's page (if still open) and forget it; whether it was still there. */
export async function closeAsk(id) {
  const ask = asks.get(id);
  if (!ask) return false;
  forget(id);
  if (ask.tabId !== null) await chrome.tabs.remove(ask.tabId).catch(() => {});
  return true;
}

/** Close every ask's page and forget what was typed (the pilot was switched off). */
export function closeAllAsks() {
  for (const id of [...asks.keys()]) closeAsk(id).catch(() => {});
}

/** The ask page's own tab asks what it is for, then sends the values. Only that page may. */
export async function onAskPageMessage(msg, sender) {
  const id = typeof msg.ask_id === 'string' ? msg.ask_id : '';
  const ask = asks.get(id);
  if (!ask || !fromAskPage(sender, id, ask)) return { ok: false, error: 'this request is no longer open' };
  if (msg.type === 'ask_info') return { ok: true, names: ask.names, workflow: ask.workflow, site: ask.site };
  if (msg.type !== 'ask_answer' || ask.values) return { ok: false, error: 'unknown request' };
  const values = {};
  for (const name of ask.names) {
    const v = msg.values && msg.values[name];
    if (typeof v !== 'string' || v === '' || v.length > MAX_VALUE_CHARS) return { ok: false, error: `${name} is missing` };
    values[name] = v;
  }
  ask.values = values;
  wake(ask);
  // The page has done its job: close it (the values stay here until the host collects them).
  chrome.tabs.remove(ask.tabId).catch(() => {});
  return { ok: true };
}

/** Whether a message comes from a TabPilot ask page (the popup and pages may not use this path). */
export function isAskPage(sender) {
  return sender.id === chrome.runtime.id && typeof sender.url === 'string' && sender.url.split(/[?#]/)[0] === ASK_URL;
}

/** A tab closed: an ask whose page it was ends (unless already answered). */
export function askTabGone(tabId) {
  for (const ask of asks.values()) {
    if (ask.tabId === tabId && !ask.values) {
      ask.gone = true;
      wake(ask);
    }
  }
}

function fromAskPage(sender, id, ask) {
  return isAskPage(sender) && sender.url.endsWith(`#${id}`) && sender.tab && sender.tab.id === ask.tabId;
}

function wake(ask) {
  for (const settle of [...ask.waiters]) if (settle()) ask.waiters.delete(settle);
}

function take(id) {
  const ask = asks.get(id);
  const values = ask ? ask.values : null;
  forget(id);
  return values;
}

function forget(id) {
  const ask = asks.get(id);
  if (!ask) return;
  clearTimeout(ask.timer);
  asks.delete(id);
  ask.gone = true;
  wake(ask);
}
