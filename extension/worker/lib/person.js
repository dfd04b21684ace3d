// Links the person clicks in a piloted tab. With "only these sites" the browser blocks every load of
// another site in a piloted tab before its request leaves (blocker.js), and the request it blocked
// does not say who started it: the person's click on a link, the page's own script, the agent's click
// or script all carry the page's origin. The page agent tells (page/person_gesture.js): a click the
// browser itself reports as the person's (`isTrusted`: no script, the agent's included, can make one)
// on a link, with the link's address as it was when the click began. A blocked load of exactly that
// address, in that tab or a tab it opened, moments later and with no command of the agent at work on
// the tab, is the person's: it goes through and the tab leaves the agent's reach, as for an address
// the person types. Anything else (a script's navigation during the person's click, a redirect from
// the link, a POST form) stays stopped.
const FRESH_MS = 2_000; // how long a click stands for the load it starts
const WAIT_MS = 500; // how long a blocked load waits for the word of a click (it may come second)

const clicks = new Map(); // tabId -> {url, until}
const waiting = new Map(); // tabId -> Set of () => void, woken when a click is told

const bare = (url) => {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
};

/** The page agent in tab `tabId` saw the person click a link to `url`. */
export function personClicked(tabId, url) {
  const at = bare(url);
  if (!Number.isInteger(tabId) || !at || !/^https?:/.test(at)) return;
  clicks.set(tabId, { url: at, until: Date.now() + FRESH_MS });
  for (const wake of waiting.get(tabId) || []) wake();
}

const fresh = (tabId, url) => {
  const c = clicks.get(tabId);
  if (!c || c.until < Date.now()) return false;
  if (c.url !== url) return false;
  clicks.delete(tabId); // one click, one load
  return true;
};

/**
 * Whether the blocked load of `url` in tab `tabId` is one the person started by clicking a link to it
 * there, or in the tab that opened it; waits (bounded) for the page agent's word when it is not in yet.
 */
export async function clickedThere(tabId, url) {
  const at = bare(url);
  if (!at) return false;
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  const from = [tabId, ...(tab && Number.isInteger(tab.openerTabId) ? [tab.openerTabId] : [])];
  if (from.some((id) => fresh(id, at))) return true;
  return new Promise((resolve) => {
    const wakes = [];
    const done = (yes) => {
      clearTimeout(timer);
      from.forEach((id, i) => waiting.get(id)?.delete(wakes[i]));
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), WAIT_MS);
    for (const id of from) {
      const wake = () => fresh(id, at) && done(true);
      wakes.push(wake);
      if (!waiting.has(id)) waiting.set(id, new Set());
      waiting.get(id).add(wake);
    }
  });
}
