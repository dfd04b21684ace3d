// The browser's own request blocking for the tabs the pilot works in. With the scope set to "only
// these sites", a main-frame load of any other site in a piloted tab (a navigation, a server redirect,
// a form post, a link the agent clicked, a script's location.href) is stopped by Chrome before the
// request leaves: no cookies sent, no page scripts run. The watch in sites.js names the site to the
// agent afterwards; this is what makes the refusal come first.
//
// declarativeNetRequest session rules, not webRequestBlocking: MV3 gives blocking webRequest only to
// policy-installed extensions. Session rules are the only ones that take tabIds, and they outlive a
// worker restart, so the rules themselves carry the tab ids between worker lives; the ids are also
// kept in session storage so a narrowed scope covers tabs piloted while every site was allowed.
import { getPilot, getScope } from './state.js';

const TABS_KEY = 'pilotedTabs';
const BLOCK_ID = 1;
const tabs = new Set();
let loaded = null;
let chain = Promise.resolve();
const fresh = new Set(); // tabs a piloted tab just opened, until they join `tabs`

function load() {
  loaded ??= chrome.storage.session.get(TABS_KEY).then((got) => {
    for (const id of got[TABS_KEY] || []) if (Number.isInteger(id)) tabs.add(id);
  }, (err) => {
    loaded = null;
    throw err;
  });
  return loaded;
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The URL regexes (RE2) a stored host pattern allows, as sites.js matches() reads it: no port means
 * any port, a port must match (80/443 also when the URL leaves the default out), `*.x` is x and its
 * subdomains. A host must follow the scheme at once: a URL with user info is never allowed here.
 */
export function patternRegex(pattern) {
  const colon = pattern.lastIndexOf(':');
  const host = colon < 0 ? pattern : pattern.slice(0, colon);
  const name = host.startsWith('*.') ? `([a-z0-9_-]+\\.)*${escape(host.slice(2))}` : escape(host);
  if (colon < 0) return `^https?://${name}(:[0-9]+)?[/?#]`;
  const port = pattern.slice(colon + 1);
  const bare = port === '80' ? '|http://' : port === '443' ? '|https://' : '';
  const withPort = `https?://${name}:${port}[/?#]`;
  return bare ? `^(${withPort}${bare}${name}[/?#])` : `^${withPort}`;
}

/**
 * One block for the piloted tabs; one for tabs not known yet, loads an allowed site starts there (a
 * link with a target in a piloted tab opens one, and its request may leave before any event could
 * name the tab); allows for the sites in scope, above both.
 */
function rulesFor(sites, tabIds, known) {
  const types = ['main_frame'];
  const rules = [{ id: BLOCK_ID, priority: 1, action: { type: 'block' }, condition: { tabIds, resourceTypes: types } }];
  const hosts = [...new Set(sites.map((p) => p.replace(/^\*\./, '').replace(/:\d+$/, '')))];
  if (hosts.length) {
    const condition = { resourceTypes: types, initiatorDomains: hosts };
    if (known.length) condition.excludedTabIds = known;
    rules.push({ id: BLOCK_ID + 1, priority: 1, action: { type: 'block' }, condition });
  }
  sites.forEach((site, i) => {
    rules.push({ id: BLOCK_ID + 2 + i, priority: 2, action: { type: 'allow' }, condition: { resourceTypes: types, regexFilter: patternRegex(site) } });
  });
  return rules;
}

async function apply() {
  await load();
  const [pilot, scope] = await Promise.all([getPilot(), getScope()]);
  let want = [];
  if (pilot && !scope.all && tabs.size) {
    const known = (await chrome.tabs.query({})).map((t) => t.id).filter((id) => !tabs.has(id) && !fresh.has(id));
    want = rulesFor(scope.sites, [...tabs], known);
  }
  const have = await chrome.declarativeNetRequest.getSessionRules();
  await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: have.map((r) => r.id), addRules: want });
}

/** Bring the rules in line with the pilot, the scope and the piloted tabs (one update at a time). */
export function syncRules() {
  chain = chain.catch(() => {}).then(apply);
  return chain;
}

/** Whether the pilot has worked in tab `tabId` (its out-of-scope loads are blocked). */
export async function isPiloted(tabId) {
  await load();
  return tabs.has(tabId);
}

/**
 * From now on, loads of sites outside the scope in tab `tabId` are blocked; resolves once the rule
 * is in place. A tab already piloted costs a set lookup.
 */
export async function pilotTab(tabId) {
  await load();
  if (!Number.isInteger(tabId) || tabs.has(tabId)) return;
  tabs.add(tabId);
  await chrome.storage.session.set({ [TABS_KEY]: [...tabs] });
  await syncRules();
}

/**
 * A tab was created: one a piloted tab opened is piloted too; any other is the person's, and leaves
 * the block for tabs not known yet.
 */
export async function tabCreated(tab) {
  await load();
  if (Number.isInteger(tab.openerTabId) && tabs.has(tab.openerTabId)) {
    fresh.add(tab.id);
    try {
      await pilotTab(tab.id);
    } finally {
      fresh.delete(tab.id);
    }
    return;
  }
  if (tabs.size) await syncRules();
}

/** Tab `tabId` closed: forget it. */
export async function tabGone(tabId) {
  await releaseTab(tabId);
}

/** The person took tab `tabId` elsewhere themselves: it is theirs again, its loads no longer blocked. */
export async function releaseTab(tabId) {
  await load();
  if (!tabs.delete(tabId)) return;
  await chrome.storage.session.set({ [TABS_KEY]: [...tabs] });
  await syncRules();
}

/** The pilot went off: the tabs are the person's again. */
export async function releaseTabs() {
  await load();
  tabs.clear();
  await chrome.storage.session.remove(TABS_KEY);
  await syncRules();
}
