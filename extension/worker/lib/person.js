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
// A document the agent ran a script in is not the page's alone: the script may have made or remade
// any link in it (a frame it added included), so the person's clicks there are not told apart from its
// work until the tab shows another document. Nor in the other tabs its script can reach: windows of the
// same opener chain (one the page opened and keeps, its opener, by name), whose documents it may write
// into, now or later. Kept in session storage: the worker may stop in between.
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

const SCRIPTED_KEY = 'scriptedDocs'; // tabId -> the top document the agent last ran a script in
let scriptedChain = Promise.resolve();
const marks = new Map(); // the same, as this worker last wrote it (a script run after another writes nothing)

/** The top document tab `tabId` shows (null when it cannot be told). */
async function topDocument(tabId) {
  const top = await chrome.webNavigation.getFrame({ tabId, frameId: 0 }).catch(() => null);
  return top?.documentId || null;
}

/** Tab `tabId` and every tab joined to it by who opened whom, either way (a script reaches them all). */
async function reachable(tabId) {
  const all = await chrome.tabs.query({}).catch(() => []);
  const near = new Map(all.map((t) => [t.id, new Set()]));
  for (const t of all) {
    if (Number.isInteger(t.openerTabId) && near.has(t.openerTabId)) {
      near.get(t.id).add(t.openerTabId);
      near.get(t.openerTabId).add(t.id);
    }
  }
  const found = new Set([tabId]);
  for (const id of found) for (const next of near.get(id) || []) found.add(next);
  return [...found];
}

/** The agent is about to run a script in tab `tabId`'s top document: it, and the top documents of the
 * tabs it can reach, are marked. */
export function scriptRuns(tabId) {
  scriptedChain = scriptedChain.catch(() => {}).then(async () => {
    const tops = [];
    for (const id of await reachable(tabId)) {
      const doc = await topDocument(id);
      if (doc && marks.get(id) !== doc) tops.push([id, doc]);
    }
    if (!tops.length) return;
    const got = (await chrome.storage.session.get(SCRIPTED_KEY))[SCRIPTED_KEY] || {};
    for (const [id, doc] of tops) got[id] = doc;
    await chrome.storage.session.set({ [SCRIPTED_KEY]: got });
    for (const [id, doc] of tops) marks.set(id, doc);
  });
  return scriptedChain;
}

/** The top document of the frame whose document is `documentId` (null when it is gone). */
async function topOf(documentId) {
  let id = documentId;
  for (let depth = 0; id && depth < 32; depth++) {
    const frame = await chrome.webNavigation.getFrame({ documentId: id }).catch(() => null);
    if (!frame) return null;
    if (!frame.parentDocumentId) return id;
    id = frame.parentDocumentId;
  }
  return null;
}

/**
 * Whether the click came from a document the agent ran a script in (or one it cannot place), or from
 * a tab that one still shown in a tab it reaches may write into (a window it opens later included).
 */
async function scripted(tabId, documentId) {
  await scriptedChain.catch(() => {});
  const got = (await chrome.storage.session.get(SCRIPTED_KEY))[SCRIPTED_KEY] || {};
  const marked = got[tabId];
  if (marked) {
    if (!documentId) return true;
    const top = await topOf(documentId);
    if (!top || top === marked) return true;
  }
  for (const id of await reachable(tabId)) {
    if (id !== tabId && got[id] && got[id] === (await topDocument(id))) return true;
  }
  return false;
}

/**
 * The page agent in tab `tabId` (in its document `documentId`) saw the person click a link to `url`.
 * Resolves once the click is noted (or set aside: a document the agent's script ran in).
 */
export async function personClicked(tabId, url, documentId = null) {
  const at = bare(url);
  if (!Number.isInteger(tabId) || !at || !/^https?:/.test(at)) return;
  if (await scripted(tabId, documentId)) return;
  clicks.set(tabId, { url: at, until: Date.now() + FRESH_MS });
  for (const wake of waiting.get(tabId) || []) wake();
}

/** Tab `tabId` closed: its mark goes. */
export async function forgetScripted(tabId) {
  await scriptedChain.catch(() => {});
  const got = (await chrome.storage.session.get(SCRIPTED_KEY))[SCRIPTED_KEY] || {};
  marks.delete(tabId);
  if (!(tabId in got)) return;
  delete got[tabId];
  await chrome.storage.session.set({ [SCRIPTED_KEY]: got });
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
