// Everything durable lives in chrome.storage (the service worker can be killed at any moment).
//   local:   pilot, instanceId, label, profile, launchNonce, trackedTabId, trackedTabUrl
//   session: connection (what the popup shows about the native host)

export const KEY = Object.freeze({
  PILOT: 'pilot',
  INSTANCE_ID: 'instanceId',
  LABEL: 'label',
  PROFILE: 'profile',
  LAUNCH_NONCE: 'launchNonce',
  TRACKED_TAB: 'trackedTabId',
  TRACKED_URL: 'trackedTabUrl',
  CONNECTION: 'connection',
});

export async function getPilot() {
  const got = await chrome.storage.local.get(KEY.PILOT);
  return got[KEY.PILOT] === true;
}

export function setPilot(enabled) {
  return chrome.storage.local.set({ [KEY.PILOT]: Boolean(enabled) });
}

export async function getTrackedTabId() {
  const got = await chrome.storage.local.get(KEY.TRACKED_TAB);
  return Number.isInteger(got[KEY.TRACKED_TAB]) ? got[KEY.TRACKED_TAB] : null;
}

export function setTrackedTab(tab) {
  if (!tab) return chrome.storage.local.remove([KEY.TRACKED_TAB, KEY.TRACKED_URL]);
  return chrome.storage.local.set({ [KEY.TRACKED_TAB]: tab.id, [KEY.TRACKED_URL]: tab.url || '' });
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
