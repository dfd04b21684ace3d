// Bringing a stopped worker back. A worker stopped from outside (DevTools, CDP Target.closeTarget)
// or killed with the extension's renderer process drops the native port, so the host exits on EOF,
// and Chrome does not restart the worker until some event needs it. A repeating alarm is that event:
// the worker it starts reconnects to the host from its top-level code.
//
// Why not an offscreen document holding a port to the worker (faster after a worker stop): an
// offscreen document is an extension host, and when the extension's process crashes with one open,
// Chrome marks the whole extension terminated; nothing but the person's Reload brings it back
// (measured on Chromium 156: no worker and no host 50 s after the kill). Without one, the worker is
// back at the next alarm.

const ALARM = 'tabpilot-watchdog';
// Chrome allows an unpacked extension (how TabPilot is installed) alarms this frequent; a packed one
// is held to 30 s. A live worker (the usual case: the native port keeps it alive) does nothing on it.
const PERIOD_MIN = 1 / 60;

export async function ensureAlarm() {
  const existing = await chrome.alarms.get(ALARM);
  if (existing && existing.periodInMinutes === PERIOD_MIN) return;
  await chrome.alarms.create(ALARM, { periodInMinutes: PERIOD_MIN });
}

export function isWatchdog(alarm) {
  return alarm.name === ALARM;
}
