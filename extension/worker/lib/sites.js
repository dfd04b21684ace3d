// The sites the person allows the pilot on: every site, or only host patterns (`jira.acme.com`,
// `*.acme.com`, `intranet:8080`). Only the popup and a dedicated profile's launch config write the
// scope (state.js; storage closed to content scripts). Every command meets it at two points: before
// it acts on a tab (checkTab, called by target.js's onTab) and whenever a tab a running command acts
// on changes its URL (guardTab: navigations, redirects, clicks, tabs it opens).
import { ERR, SITE_MAX_CHARS, SITE_PATTERN } from '../protocol.js';
import { CommandError } from './errors.js';
import { isPiloted, pilotTab, releaseTab } from './blocker.js';
import { waitForLoad } from './navwatch.js';
import { clickedThere } from './person.js';
import { KEY, getScope } from './state.js';

// A host (or *.domain) with an optional port, as the host checks it (generated from wire/site_pattern.py).
const PATTERN_RE = new RegExp(SITE_PATTERN);

/** A host pattern as stored (lower case, no scheme, path or trailing dot), or null if it is not one. */
export function normalizePattern(raw) {
  if (typeof raw !== 'string') return null;
  let text = raw.trim().toLowerCase();
  const scheme = text.match(/^[a-z][a-z0-9+.-]*:\/\//);
  if (scheme) text = text.slice(scheme[0].length); // a pasted URL gives its host
  text = text.split(/[/?#]/)[0].replace(/\.(?=:|$)/, '');
  return text.length <= SITE_MAX_CHARS && PATTERN_RE.test(text) ? text : null;
}

function parse(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** A URL's site as the popup names it (host, with the port when it is not the default), else null. */
export function siteOf(url) {
  const u = parse(url);
  return u ? u.host : null;
}

/** Whether `pattern` covers `url`: a port in the pattern must match, `*.x` covers x and its subdomains. */
export function matches(pattern, url) {
  const u = parse(url);
  if (!u) return false;
  const colon = pattern.lastIndexOf(':');
  const host = colon < 0 ? pattern : pattern.slice(0, colon);
  if (colon >= 0 && pattern.slice(colon + 1) !== (u.port || (u.protocol === 'https:' ? '443' : '80'))) return false;
  if (host.startsWith('*.')) return u.hostname === host.slice(2) || u.hostname.endsWith(host.slice(1));
  return u.hostname === host;
}

/** Whether `scope` lets the pilot act on `url`. A tab with no page yet (about:blank) holds nothing. */
export function allows(scope, url) {
  if (scope.all || !url || url === 'about:blank') return true;
  return scope.sites.some((p) => matches(p, url));
}

/**
 * The refusal, naming the site and the click that allows it. A site the agent tried to load is
 * shown in the popup as its request; a tab that merely shows one (`asked: false`, e.g. the person's
 * active tab) is not, so the popup never suggests allowing a site the agent did not ask for.
 */
export function notAllowed(url, tabId = null, { asked = true } = {}) {
  const site = siteOf(url);
  const data = { site, tab_id: tabId };
  if (!site) {
    const scheme = String(url).split(':')[0];
    return new CommandError(ERR.SITE_NOT_ALLOWED, `${scheme}: pages are outside the sites the AI Web Pilot may use; only "All sites" in the TabPilot popup allows them`, { data });
  }
  if (!asked) {
    return new CommandError(
      ERR.SITE_NOT_ALLOWED,
      `tab ${tabId} shows ${site}, which is not among the sites you allow the AI Web Pilot on. To allow it, open the TabPilot popup on that tab and click "Allow" next to ${site} (or choose "All sites"); or work in a tab on an allowed site`,
      { data },
    );
  }
  chrome.storage.session.set({ [KEY.SITE_REQUEST]: { site, at: Date.now() } }).catch(() => {});
  return new CommandError(
    ERR.SITE_NOT_ALLOWED,
    `${site} is not among the sites you allow the AI Web Pilot on. To allow it, open the TabPilot popup and click "Allow" next to ${site} (or choose "All sites"), then try again`,
    { data },
  );
}

/** Throw site_not_allowed unless the scope allows `url` (a URL the agent is about to load). */
export async function checkUrl(url, tabId = null) {
  if (!allows(await getScope(), url)) throw notAllowed(url, tabId);
}

/**
 * Throw site_not_allowed unless the scope allows what tab `tabId` shows (and is loading). With every
 * site allowed this reads only the mirror: the tabs.get is paid by restricted profiles alone.
 */
export async function checkTab(tabId) {
  const scope = await getScope();
  if (scope.all) return;
  await returned(tabId);
  told.delete(tabId); // a refusal from now on is news to the agent again
  // Kept until the answer carries it (dispatch.js calls refusalTold): a caller that swallows errors
  // (a best-effort read before the command's own) must not use it up.
  const note = await refusalOf(tabId);
  if (note) throw refusalError(tabId, note);
  const tab = await chrome.tabs.get(tabId); // "No tab with id" reaches onTab as it would from act()
  for (const url of [tab.url, tab.pendingUrl]) {
    if (url && !allows(scope, url)) throw notAllowed(url, tabId, { asked: false });
  }
  // Where a load stopped later takes the tab back to (a tab loaded before the agent came to it too).
  if (tab.url && !tab.pendingUrl && /^https?:/.test(tab.url)) setBack(tabId, tab.url);
}

// The URL-change guard. Commands in flight, by their signal; tabs they act on, with their commands.
const commands = new WeakMap(); // AbortSignal -> AbortController
const guarded = new Map(); // tabId -> Set of AbortController
// Tabs just stopped, until when: the navigation may still commit after its command has ended.
const stopped = new Map(); // tabId -> deadline (ms)
const STOPPED_MS = 10_000;
let installed = false;

/** A command starts (dispatch.js); the returned function ends its guard. */
export function commandStarted(controller) {
  const tabs = new Set();
  commands.set(controller.signal, { controller, tabs });
  return () => {
    for (const tabId of tabs) {
      const set = guarded.get(tabId);
      set?.delete(controller);
      if (set && !set.size) guarded.delete(tabId);
    }
  };
}

/**
 * From now until the command of `signal` ends, a move of tab `tabId` off the scope stops it; from now
 * on, the browser blocks any load off the scope in it (blocker.js). Resolves once that block is set.
 */
export async function guardTab(tabId, signal) {
  const entry = signal ? commands.get(signal) : null;
  if (!entry || !Number.isInteger(tabId)) return;
  install();
  await pilotTab(tabId);
  entry.tabs.add(tabId);
  if (!guarded.has(tabId)) guarded.set(tabId, new Set());
  guarded.get(tabId).add(entry.controller);
}

const back = new Map(); // tabId -> the last allowed page the tab showed, to take it back to
// The same in session storage: a worker that restarted still knows where to take a tab back to.
const BACK_KEY = 'allowedPages';

function setBack(tabId, url) {
  if (back.get(tabId) === url) return;
  back.set(tabId, url);
  // One write at a time: two reads before either write would lose a tab's page.
  backWrites = backWrites.then(() => chrome.storage.session.get(BACK_KEY)).then((got) => {
    const all = got[BACK_KEY] || {};
    all[tabId] = url;
    return chrome.storage.session.set({ [BACK_KEY]: all });
  }).catch(() => {});
}
let backWrites = Promise.resolve();

async function backOf(tabId) {
  if (back.has(tabId)) return back.get(tabId);
  const got = (await chrome.storage.session.get(BACK_KEY))[BACK_KEY] || {};
  return got[tabId] || 'about:blank';
}
const returning = new Map(); // tabId -> the load taking it back there, while under way
const RETURN_MS = 10_000;

// Refusals no command heard of (a script's timer, the page itself, the person at the address bar):
// kept per tab in session storage until the agent's next call on that tab tells it.
const REFUSED_KEY = 'refusedLoads';

async function noteRefusal(tabId, note) {
  const got = (await chrome.storage.session.get(REFUSED_KEY))[REFUSED_KEY] || {};
  got[tabId] = note;
  await chrome.storage.session.set({ [REFUSED_KEY]: got });
}

/** The refusal tab `tabId` had that no call has told yet (null: none). */
async function refusalOf(tabId) {
  const got = (await chrome.storage.session.get(REFUSED_KEY))[REFUSED_KEY] || {};
  return got[tabId] || null;
}

/**
 * Tab `tabId`'s refusal was told (an answer carried it), or is moot (the tab loads another page): it is
 * forgotten.
 */
export async function forgetRefusal(tabId) {
  told.delete(tabId);
  if (!(await refusalOf(tabId))) return;
  const got = (await chrome.storage.session.get(REFUSED_KEY))[REFUSED_KEY] || {};
  delete got[tabId];
  await chrome.storage.session.set({ [REFUSED_KEY]: got });
}

function refusalError(tabId, { site, back: to }) {
  return new CommandError(
    ERR.SITE_NOT_ALLOWED,
    `a load of ${site} in tab ${tabId} was stopped before its request: it started while no call of yours was running on the tab (a script's timer, the page itself, or the person), and ${site} is not among the sites you allow the AI Web Pilot on. The tab was taken back to ${to}, reloaded. Nothing was done by this call: call again to act on the tab as it is now (to allow ${site}, open the TabPilot popup and click "Allow" next to it)`,
    { data: { site, tab_id: tabId, stopped_earlier: true } },
  );
}

/** Until tab `tabId` is back on its allowed page, if it is being taken back (bounded). */
async function returned(tabId) {
  const load = returning.get(tabId);
  if (load) await load;
}

/**
 * The agent was told of a refused load in tab `tabId` (execute_js saw its script start it): the
 * refusal the browser reports next is not noted for its next call.
 */
export function refusalHeard(tabId, url) {
  stopped.set(tabId, Date.now() + STOPPED_MS);
  told.set(tabId, { site: siteOf(url), until: Date.now() + STOPPED_MS });
}
const told = new Map(); // tabId -> the site whose refusal a call just answered, until when

/** Take tab `tabId` back to `url`; resolves once it has loaded there (or failed to, or took too long). */
function takeBack(tabId, url) {
  const { promise, stop } = waitForLoad(tabId, { expect: url });
  const load = (async () => {
    try {
      await chrome.tabs.update(tabId, { url });
      await Promise.race([promise, new Promise((resolve) => {
        setTimeout(resolve, RETURN_MS);
      })]);
    } catch {
      // the tab closed, or the load failed: nothing more to wait for
    } finally {
      stop();
      if (returning.get(tabId) === load) returning.delete(tabId);
    }
  })();
  returning.set(tabId, load);
  return load;
}

async function moved(tabId, url, { committed = false, blocked = false } = {}) {
  const set = guarded.get(tabId);
  const recent = (stopped.get(tabId) || 0) > Date.now();
  if (!(set && set.size) && !recent) {
    if (!(await isPiloted(tabId))) return;
    // A page a piloted tab shows with no command at work (one the page opened, a link the person
    // followed) is where a blocked load later takes it back to.
    if (!blocked) {
      if (committed && /^https?:/.test(url) && allows(await getScope(), url)) setBack(tabId, url);
      return;
    }
    // A blocked load in a piloted tab is taken back even after its command ended (a script's late
    // location.href): the tab would otherwise sit on Chrome's "blocked" page.
  }
  const scope = await getScope();
  if (scope.all) return;
  if (!committed) {
    // The page being left (unless the new one has committed meanwhile).
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (tab && tab.url && allows(scope, tab.url)) setBack(tabId, tab.url);
  }
  if (allows(scope, url)) {
    if (committed && !blocked) {
      setBack(tabId, url);
      stopped.delete(tabId); // taken back, or never away
    }
    return;
  }
  const last = told.get(tabId);
  const heard = (set && set.size) || (last && last.site === siteOf(url) && last.until > Date.now());
  if (set && set.size) told.set(tabId, { site: siteOf(url), until: Date.now() + STOPPED_MS });
  stopped.set(tabId, Date.now() + STOPPED_MS);
  const err = notAllowed(url, tabId);
  for (const controller of set || []) controller.abort(err);
  const to = await backOf(tabId);
  if (!heard) {
    await noteRefusal(tabId, { site: siteOf(url) || String(url).split(':')[0], back: to });
  }
  // A new navigation supersedes one not committed yet; a committed one (a server redirect shows
  // only then) is replaced. chrome.tabs.goBack would skip the agent's entries (no user gesture).
  await takeBack(tabId, to);
}

/** The person narrowed the scope: commands at work on a tab now outside it stop at once. */
export async function rescope() {
  const scope = await getScope();
  if (scope.all) return;
  for (const [tabId, set] of guarded) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const url = tab ? tab.url || tab.pendingUrl || '' : '';
    if (!tab || allows(scope, url)) continue;
    const err = notAllowed(url, tabId, { asked: false });
    for (const controller of set) controller.abort(err);
  }
}

/** A tab a guarded tab opened (a link with a target): closed when it leads outside the scope. */
async function opened(sourceTabId, tabId, url) {
  const set = guarded.get(sourceTabId);
  if (!set || !set.size) return;
  if (allows(await getScope(), url)) return;
  const err = notAllowed(url, sourceTabId);
  for (const controller of set) controller.abort(err);
  await chrome.tabs.remove(tabId);
}

// Main-frame requests the browser blocked, with no initiator, by tab: webRequest names the initiator
// (and reports the block first), webNavigation reports the load's failure after it.
const browserStarted = new Map(); // tabId -> URL

/** A main-frame request failed (webRequest, heard from the worker's first moment: background.js). */
export function requestFailed(d) {
  if (d.frameId !== 0 || d.tabId < 0 || d.error !== 'net::ERR_BLOCKED_BY_CLIENT') return;
  if (d.initiator === undefined) browserStarted.set(d.tabId, d.url);
  else browserStarted.delete(d.tabId);
}

/**
 * A load failed in some tab (background.js hears it from the worker's first moment, so a worker that
 * restarted acts before any command arrives). One the browser blocked in a piloted tab (blocker.js)
 * is taken back, unless it was the person's own: a request with no initiator is one the browser
 * started (the address bar, a bookmark), never a page's script or this extension (theirs carry their
 * origin). The scope binds the agent, not the person: their load goes through and the tab leaves the
 * agent's reach (its next call on the tab answers site_not_allowed, as for any tab on a site outside).
 * While a command of the agent acts on the tab (or just did), every block holds.
 */
export function loadFailed(d) {
  if (d.frameId !== 0 || d.error !== 'net::ERR_BLOCKED_BY_CLIENT') return;
  const byBrowser = browserStarted.get(d.tabId) === d.url;
  browserStarted.delete(d.tabId);
  blocked(d, byBrowser).catch((err) => console.warn('TabPilot: site guard:', err));
}

async function blocked(d, byBrowser) {
  const busy = () => Boolean(guarded.get(d.tabId)?.size) || (stopped.get(d.tabId) || 0) > Date.now();
  const agents = busy();
  // The address bar is the active tab's: a load with no initiator in a tab behind others is not typed
  // there (a page's history.back() to an entry the person typed has no initiator either).
  const shown = byBrowser && !agents ? await chrome.tabs.get(d.tabId).then((t) => t.active, () => false) : false;
  // Or a link the person clicked (person.js): theirs too, when no command of the agent is at work.
  const theirs = shown || (!byBrowser && !agents && (await isPiloted(d.tabId)) && (await clickedThere(d.tabId, d.url)) && !busy());
  if (theirs && (await isPiloted(d.tabId))) {
    await releaseTab(d.tabId);
    await chrome.tabs.update(d.tabId, { url: d.url });
    return;
  }
  await moved(d.tabId, d.url, { committed: true, blocked: true });
}

// Added the first time a command acts on a tab, kept while this worker lives. Not at top level on
// purpose: there they would wake the worker for every navigation in the browser (a failed load is
// rare enough to wake it: loadFailed and requestFailed are at top level).
function install() {
  if (installed) return;
  installed = true;
  const nav = chrome.webNavigation;
  const warn = (err) => console.warn('TabPilot: site guard:', err);
  nav.onBeforeNavigate.addListener((d) => {
    if (d.frameId === 0) moved(d.tabId, d.url).catch(warn);
  });
  // A server redirect shows only here, with the URL it ended on.
  nav.onCommitted.addListener((d) => {
    if (d.frameId === 0) moved(d.tabId, d.url, { committed: true }).catch(warn);
  });
  nav.onCreatedNavigationTarget.addListener((d) => {
    isPiloted(d.sourceTabId).then((yes) => yes && pilotTab(d.tabId)).catch(warn);
    opened(d.sourceTabId, d.tabId, d.url).catch(warn);
  });
}
