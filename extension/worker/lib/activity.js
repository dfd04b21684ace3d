// What the person sees of the agent's work: the last actions (time, tab, its site, action, row
// count, outcome; never arguments or values) kept in chrome.storage.session for the popup, and a
// toolbar badge while a piloted command runs. Nothing here is awaited by a command: its answer
// never waits for the log.
import { siteOf } from './sites.js';

export const ACTIVITY_KEY = 'activity';
const MAX_ENTRIES = 50;
// The badge stays a moment after the last command, so a burst of calls shows as one spell of work
// instead of a flicker (and costs two badge calls, not two per command).
const BADGE_LINGER_MS = 400;

// Entries are written in batches at most every FLUSH_MS: a storage write per command measured
// +0.4 ms on execute_js's p50 (the browser process does the work on the same 2 cores). A worker that
// dies loses at most the last FLUSH_MS of the log.
const FLUSH_MS = 250;

let pending = [];
let log = null; // this worker's copy of the stored log, read once
let timer = null;
let chain = Promise.resolve();
let running = 0;
let clearTimer = null;

function warn(err) {
  console.warn('TabPilot: activity log:', err);
}

/** The site a logged action was on: the tab's page when the batch is written (host only, no path). */
async function withSite(entry) {
  if (entry.site || !Number.isInteger(entry.tab)) return entry;
  const tab = await chrome.tabs.get(entry.tab).catch(() => null);
  return { ...entry, site: tab ? siteOf(tab.url || tab.pendingUrl || '') : null };
}

async function flush() {
  const taken = pending;
  pending = [];
  const batch = await Promise.all(taken.map(withSite));
  if (log === null) {
    const got = await chrome.storage.session.get(ACTIVITY_KEY);
    log = Array.isArray(got[ACTIVITY_KEY]) ? got[ACTIVITY_KEY] : [];
  }
  log = [...log, ...batch].slice(-MAX_ENTRIES);
  await chrome.storage.session.set({ [ACTIVITY_KEY]: log });
}

/** Append one finished action to the popup's log (written within FLUSH_MS). */
export function record(entry) {
  pending.push(entry);
  if (timer !== null) return;
  timer = setTimeout(() => {
    timer = null;
    chain = chain.then(flush).catch(warn);
  }, FLUSH_MS);
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

const ICON_SIZES = [16, 32, 48, 128];

/** The toolbar icon says whether the pilot is on (blue) or off (grey, the manifest's default). */
export function showPilotIcon(enabled) {
  const design = enabled ? 'icon' : 'icon-off';
  const path = Object.fromEntries(ICON_SIZES.map((s) => [s, `icons/${design}-${s}.png`]));
  chrome.action.setIcon({ path }).catch(warn);
}

export const WORKFLOW_KEY = 'workflow';
const WORKFLOW_FIELDS = ['correlation_id', 'label', 'status', 'steps_completed', 'steps_total', 'pages', 'rows'];

/**
 * The host's news of the scrape it runs (event "workflow"), kept for the popup. Only counts and the
 * workflow's name are kept: the host never sends data, and anything else is dropped here too.
 */
export function noteWorkflow(data) {
  if (!data || typeof data !== 'object' || typeof data.correlation_id !== 'string') return;
  const kept = { at: Date.now() };
  for (const key of WORKFLOW_FIELDS) {
    const value = data[key];
    if (typeof value === 'string' || Number.isFinite(value)) kept[key] = value;
  }
  chrome.storage.session.set({ [WORKFLOW_KEY]: kept }).catch(warn);
}
