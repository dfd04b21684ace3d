// Everything durable lives in chrome.storage (the service worker can be killed at any moment).
//   local:   pilot, instanceId, label, profile, launchNonce, trackedTabId, trackedTabUrl,
//            redactSelectors (the user's list, edited in the popup only), redactExtra (added by the agent),
//            sites (the pilot's scope, {all, sites}: written only for the popup or a launch config),
//            redactPatterns (the user's secret-shaped text patterns, popup only; default REDACT_PATTERNS),
//            redactPatternsExtra (patterns the agent added), scriptSites (sites where the person allows
//            the agent's scripts on pages holding secrets; popup only: lib/consent.js)
//   session: connection (what the popup shows about the native host), siteRequest (the last site
//            the agent was refused, for the popup's Allow button)
//
// The command path reads the pilot flag and the tracked tab on every command, and a
// chrome.storage.local.get costs ~0.6 ms, so this worker keeps a mirror of those two in memory.
// chrome.storage stays the source of truth: the mirror is read from it when the worker starts (every
// reader awaits that), follows chrome.storage.onChanged, and dies with the worker. It never lets the
// pilot be more on than storage says: turning it off takes effect here at once, turning it on only
// once a read of storage confirms it. The scope (sites) is mirrored too, and read again from storage
// after any change to it.

import { REDACT_PATTERNS } from '../protocol.js';

export const KEY = Object.freeze({
  PILOT: 'pilot',
  INSTANCE_ID: 'instanceId',
  LABEL: 'label',
  PROFILE: 'profile',
  LAUNCH_NONCE: 'launchNonce',
  TRACKED_TAB: 'trackedTabId',
  TRACKED_URL: 'trackedTabUrl',
  CONNECTION: 'connection',
  REDACT: 'redactSelectors',
  REDACT_EXTRA: 'redactExtra',
  SITES: 'sites',
  SITE_REQUEST: 'siteRequest',
  REDACT_PATTERNS: 'redactPatterns',
  REDACT_PATTERNS_EXTRA: 'redactPatternsExtra',
  SCRIPT_SITES: 'scriptSites',
});

/** The scope of a profile nobody has restricted: every site, as before scopes existed. */
export const ALL_SITES = Object.freeze({ all: true, sites: Object.freeze([]) });

/** What is redacted in every page output unless the user changes the list in the popup. */
export const DEFAULT_REDACT = Object.freeze(['input[type=password]', '[data-sensitive]', '[data-private]', '.sensitive']);

const mirror = { pilot: false, trackedTabId: null, redact: null, scope: null, patterns: null };
let loaded = null;
// Bumped whenever the mirror learns something newer than a read in flight could: that read is then
// dropped. pilotOffs counts only switch-offs, since a late read can never make the mirror stricter.
let pilotOffs = 0;
let trackedChanges = 0;
let scopeChanges = 0;

function asTabId(value) {
  return Number.isInteger(value) ? value : null;
}

/** Read the pilot flag from storage into the mirror, unless it was switched off meanwhile. */
async function readPilot() {
  const offs = pilotOffs;
  const got = await chrome.storage.local.get(KEY.PILOT);
  if (offs === pilotOffs) mirror.pilot = got[KEY.PILOT] === true;
}

async function readTrackedTab() {
  const seen = trackedChanges;
  const got = await chrome.storage.local.get(KEY.TRACKED_TAB);
  if (seen === trackedChanges) mirror.trackedTabId = asTabId(got[KEY.TRACKED_TAB]);
}

function pilotOff() {
  pilotOffs += 1;
  mirror.pilot = false;
}

/** Fill the mirror from storage once per worker life; a failed read is tried again by the next caller. */
export function loadState() {
  loaded ??= Promise.all([readPilot(), readTrackedTab()]).catch((err) => {
    loaded = null;
    throw err;
  });
  return loaded;
}

/**
 * Follow a chrome.storage.onChanged event (area "local"). A switch-off applies at once; anything
 * else is read back from storage, because this event may be older than a write this worker made.
 */
export function applyStorageChanges(changes) {
  const pilot = changes[KEY.PILOT];
  if (pilot) {
    if (pilot.newValue !== true) pilotOff();
    else readPilot().catch((err) => console.warn('TabPilot: cannot read the pilot flag:', err));
  }
  if (changes[KEY.REDACT] || changes[KEY.REDACT_EXTRA]) mirror.redact = null;
  if (changes[KEY.SITES]) {
    scopeChanges += 1;
    mirror.scope = null;
  }
  if (changes[KEY.REDACT_PATTERNS] || changes[KEY.REDACT_PATTERNS_EXTRA]) mirror.patterns = null;
  if (changes[KEY.TRACKED_TAB]) {
    trackedChanges += 1;
    readTrackedTab().catch((err) => console.warn('TabPilot: cannot read the tracked tab:', err));
  }
}

export async function getPilot() {
  await loadState();
  return mirror.pilot;
}

/** Write the pilot flag. Off holds in this worker from this call on; on once storage has it. */
export async function setPilot(enabled) {
  if (!enabled) pilotOff();
  await chrome.storage.local.set({ [KEY.PILOT]: Boolean(enabled) });
  if (enabled) await readPilot();
}

export async function getTrackedTabId() {
  await loadState();
  return mirror.trackedTabId;
}

export function setTrackedTab(tab) {
  trackedChanges += 1;
  mirror.trackedTabId = tab ? tab.id : null;
  if (!tab) return chrome.storage.local.remove([KEY.TRACKED_TAB, KEY.TRACKED_URL]);
  return chrome.storage.local.set({ [KEY.TRACKED_TAB]: tab.id, [KEY.TRACKED_URL]: tab.url || '' });
}

/** Stop tracking `tabId` if it is the tracked tab (it was closed). */
export async function untrack(tabId) {
  if ((await getTrackedTabId()) === tabId) await setTrackedTab(null);
}

/**
 * The selectors whose elements are redacted in page output: the user's list (default DEFAULT_REDACT)
 * plus what the agent added. The agent can add selectors, never remove one.
 */
export async function getRedaction() {
  if (mirror.redact === null) {
    const got = await chrome.storage.local.get([KEY.REDACT, KEY.REDACT_EXTRA]);
    const own = Array.isArray(got[KEY.REDACT]) ? got[KEY.REDACT] : DEFAULT_REDACT;
    const extra = Array.isArray(got[KEY.REDACT_EXTRA]) ? got[KEY.REDACT_EXTRA] : [];
    mirror.redact = [...new Set([...own, ...extra].filter((s) => typeof s === 'string' && s))];
  }
  return mirror.redact;
}

function asScope(value) {
  if (!value || typeof value !== 'object' || value.all !== false) {
    const sites = value && Array.isArray(value.sites) ? value.sites : [];
    return { all: true, sites: sites.filter((p) => typeof p === 'string') };
  }
  return { all: false, sites: (Array.isArray(value.sites) ? value.sites : []).filter((p) => typeof p === 'string') };
}

/** The pilot's scope, {all, sites}: every site, or only the host patterns in `sites`. */
export async function getScope() {
  if (mirror.scope !== null) return mirror.scope;
  const seen = scopeChanges;
  const got = await chrome.storage.local.get(KEY.SITES);
  const scope = asScope(got[KEY.SITES]);
  if (seen === scopeChanges) mirror.scope = scope;
  return scope;
}

/** Write the scope. Callers decide who may: the popup's messages and a launch config, nothing else. */
export async function setScope(scope) {
  const clean = asScope(scope);
  scopeChanges += 1;
  mirror.scope = null;
  await chrome.storage.local.set({ [KEY.SITES]: clean });
  return clean;
}

/**
 * The secret-shaped text patterns masked in page output: the user's list (default REDACT_PATTERNS)
 * plus what the agent added. The agent can add patterns, never remove one.
 */
export async function getPatterns() {
  if (mirror.patterns === null) {
    const got = await chrome.storage.local.get([KEY.REDACT_PATTERNS, KEY.REDACT_PATTERNS_EXTRA]);
    const own = Array.isArray(got[KEY.REDACT_PATTERNS]) ? got[KEY.REDACT_PATTERNS] : REDACT_PATTERNS;
    const extra = Array.isArray(got[KEY.REDACT_PATTERNS_EXTRA]) ? got[KEY.REDACT_PATTERNS_EXTRA] : [];
    mirror.patterns = [...new Set([...own, ...extra].filter((s) => typeof s === 'string' && s))];
  }
  return mirror.patterns;
}

/** Record the native connection's state for the popup (session storage: gone with the browser). */
export function setConnection(state) {
  return chrome.storage.session.set({ [KEY.CONNECTION]: { ...state, at: Date.now() } });
}

/** Keep our storage away from content scripts; only extension pages and the worker may read it. */
export async function restrictStorage() {
  for (const area of [chrome.storage.local, chrome.storage.session]) {
    try {
      await area.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' });
    } catch {
      // Older Chrome: only session storage supports it, and it is trusted-only by default.
    }
  }
}
