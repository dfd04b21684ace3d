// What the person sees of the agent's work: the last actions (time, tab, action, outcome; never
// arguments or values) kept in chrome.storage.session for the popup, and a toolbar badge while a
// piloted command runs. Nothing here is awaited by a command: its answer never waits for the log.

export const ACTIVITY_KEY = 'activity';
const MAX_ENTRIES = 50;
// The badge stays a moment after the last command, so a burst of calls shows as one spell of work
// instead of a flicker (and costs two badge calls, not two per command).
const BADGE_LINGER_MS = 400;

let pending = [];
let flushing = null;
let running = 0;
let clearTimer = null;

function warn(err) {
  console.warn('TabPilot: activity log:', err);
}

async function flush() {
  while (pending.length) {
    const batch = pending;
    pending = [];
    const got = await chrome.storage.session.get(ACTIVITY_KEY);
    const log = Array.isArray(got[ACTIVITY_KEY]) ? got[ACTIVITY_KEY] : [];
    await chrome.storage.session.set({ [ACTIVITY_KEY]: [...log, ...batch].slice(-MAX_ENTRIES) });
  }
}

/** Append one finished action to the popup's log. */
export function record(entry) {
  pending.push(entry);
  flushing ??= flush()
    .catch(warn)
    .finally(() => {
      flushing = null;
      if (pending.length) record(pending.pop());
    });
}

/** A piloted command started acting on the browser: show the badge. */
export function actingStarted() {
  running += 1;
  if (running > 1) return;
  if (clearTimer !== null) {
    clearTimeout(clearTimer);
    clearTimer = null;
    return; // still showing from the previous command
  }
  chrome.action.setBadgeBackgroundColor({ color: '#bf5700' }).catch(warn);
  chrome.action.setBadgeText({ text: 'AI' }).catch(warn);
  chrome.action.setTitle({ title: 'TabPilot: your AI agent is acting in this browser' }).catch(warn);
}

/** A piloted command ended; the badge goes once nothing has run for a moment. */
export function actingEnded() {
  running = Math.max(0, running - 1);
  if (running > 0) return;
  clearTimer = setTimeout(() => {
    clearTimer = null;
    chrome.action.setBadgeText({ text: '' }).catch(warn);
    chrome.action.setTitle({ title: 'TabPilot' }).catch(warn);
  }, BADGE_LINGER_MS);
}
