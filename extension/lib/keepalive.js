// Bringing a killed service worker back. A worker stopped from outside (DevTools, a crash, CDP
// Target.closeTarget) is not restarted until some event needs it, and with it went the native port.
// The offscreen document holds a runtime port to the worker and reconnects when it drops: the
// reconnection is an event that starts the worker, whose top-level code reconnects to the host.
// The alarm is the backstop if the offscreen document itself is gone.

export const KEEPALIVE_PORT = 'tabpilot-keepalive';
const ALARM = 'tabpilot-watchdog';
const OFFSCREEN_URL = 'offscreen.html';

let creating = null;

export async function ensureOffscreen() {
  if (!chrome.offscreen) return;
  try {
    const existing = await chrome.runtime.getContexts({
      contextTypes: ['OFFSCREEN_DOCUMENT'],
      documentUrls: [chrome.runtime.getURL(OFFSCREEN_URL)],
    });
    if (existing.length) return;
    creating ??= chrome.offscreen.createDocument({
      url: OFFSCREEN_URL,
      // No reason names "keep the worker alive"; DOM_PARSER is the one this document will also serve
      // (parsing HTML for extraction). Chrome enforces no behaviour for it, unlike AUDIO_PLAYBACK.
      reasons: ['DOM_PARSER'],
      justification: 'Restarts the TabPilot worker and its connection to the local TabPilot host when the browser stops it.',
    });
    await creating;
  } catch (err) {
    if (!/single offscreen/i.test(String(err && err.message))) console.warn('TabPilot: no offscreen document:', err);
  } finally {
    creating = null;
  }
}

export async function ensureAlarm() {
  if (!(await chrome.alarms.get(ALARM))) {
    await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
  }
}

export function isWatchdog(alarm) {
  return alarm.name === ALARM;
}
