// The redaction part of the page agent (page/core.js, patterns.js, redact.js) in every document from
// document_start while the pilot is on: all frames, every tab (a tab a piloted page opens included),
// before any of the page's own scripts run. It only watches (which fields are secret, what values they
// held) and answers nothing until a command asks; the rest of the agent is injected at the first
// command (worker/lib/page.js) and finds this part's memory in place.
import { AGENT_FILES } from './page.js';

const SCRIPT_ID = 'tabpilot-guard';
export const GUARD_FILES = Object.freeze(['page/core.js', 'page/patterns.js', 'page/redact.js']);

let chain = Promise.resolve();

/** Register the guard (pilot on) or remove it (pilot off). */
export function syncGuard(on) {
  // One change at a time: two registrations of the same id in flight would collide.
  chain = chain.then(() => apply(on)).catch((err) => console.warn('TabPilot: cannot switch the page guard:', err));
  return chain;
}

async function apply(on) {
  const registered = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (on && !registered.length) {
    await chrome.scripting.registerContentScripts([{
      id: SCRIPT_ID,
      js: GUARD_FILES.filter((f) => AGENT_FILES.includes(f)),
      matches: ['<all_urls>'],
      runAt: 'document_start',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: false,
    }]);
  } else if (!on && registered.length) {
    await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  }
}
