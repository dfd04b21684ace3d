// The redaction part of the page agent (page/core.js, patterns.js, redact.js) in every document from
// document_start while the pilot is on: all frames, every tab (a tab a piloted page opens included),
// before any of the page's own scripts run. It only watches (which fields are secret, what values they
// held) and answers nothing until a command asks; the rest of the agent is injected at the first
// command (worker/lib/page.js) and finds this part's memory in place.
// The person's own selectors (and the agent's additions) are not known to redact.js at document_start:
// page/redact_early.js keeps what the page changes until they arrive from the worker. It is registered
// only while the list holds more than the defaults, so a browser with the defaults pays nothing.
import { AGENT_FILES } from './page.js';
import { DEFAULT_REDACT, KEY } from './state.js';

const SCRIPT_ID = 'tabpilot-guard';
export const GUARD_FILES = Object.freeze(['page/core.js', 'page/patterns.js', 'page/redact.js', 'page/redact_scrub.js', 'page/person_gesture.js']);
const EARLY_FILE = 'page/redact_early.js';
// In the page's own world: it tells redact.js of each shadow root a page script attaches.
const MAIN_ID = 'tabpilot-guard-main';
const MAIN_FILE = 'main_world/redact_shadow.js';

let chain = Promise.resolve();

/** Register the guard (pilot on) or remove it (pilot off). */
export function syncGuard(on) {
  // One change at a time: two registrations of the same id in flight would collide.
  chain = chain.then(() => apply(on)).catch((err) => console.warn('TabPilot: cannot switch the page guard:', err));
  return chain;
}

/** Whether the stored list (read from storage: the mirror may not have the change yet) goes past the defaults. */
async function customList() {
  const got = await chrome.storage.local.get([KEY.REDACT, KEY.REDACT_EXTRA]);
  const own = Array.isArray(got[KEY.REDACT]) ? got[KEY.REDACT] : DEFAULT_REDACT;
  const extra = Array.isArray(got[KEY.REDACT_EXTRA]) ? got[KEY.REDACT_EXTRA] : [];
  return [...own, ...extra].some((s) => typeof s === 'string' && s && !DEFAULT_REDACT.includes(s));
}

async function apply(on) {
  const registered = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  const files = [...GUARD_FILES, ...(on && (await customList()) ? [EARLY_FILE] : [])].filter((f) => AGENT_FILES.includes(f));
  if (on && registered.length && JSON.stringify(registered[0].js) !== JSON.stringify(files)) {
    await chrome.scripting.updateContentScripts([{ id: SCRIPT_ID, js: files }]);
  } else if (on && !registered.length) {
    await chrome.scripting.registerContentScripts([{
      id: SCRIPT_ID,
      js: files,
      matches: ['<all_urls>'],
      runAt: 'document_start',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: false,
    }]);
  } else if (!on && registered.length) {
    await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  }
  const main = await chrome.scripting.getRegisteredContentScripts({ ids: [MAIN_ID] });
  if (on && !main.length) {
    await chrome.scripting.registerContentScripts([{
      id: MAIN_ID,
      js: [MAIN_FILE],
      world: 'MAIN',
      matches: ['<all_urls>'],
      runAt: 'document_start',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: false,
    }]);
  } else if (!on && main.length) {
    await chrome.scripting.unregisterContentScripts({ ids: [MAIN_ID] });
  }
}
