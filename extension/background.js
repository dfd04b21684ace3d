// TabPilot's service worker. Every listener is registered synchronously here at top level, so any
// event (a popup message, the watchdog alarm) can start a stopped worker; the top-level code then
// reconnects to the native host. Durable state lives in chrome.storage; variables hold only
// what dies harmlessly with the worker (lib/state.js mirrors the two settings every command reads).
import { showPilotIcon } from './worker/lib/activity.js';
import { askTabGone, closeAllAsks, isAskPage, onAskPageMessage } from './worker/lib/ask.js';
import { forgetAll } from './worker/lib/ahead.js';
import { releaseAll } from './worker/lib/bgtabs.js';
import { releaseTabs, syncRules, tabCreated, tabGone } from './worker/lib/blocker.js';
import { abortAll, abortPiloted, dispatch } from './worker/dispatch.js';
import { setScriptSite } from './worker/lib/consent.js';
import { syncGuard } from './worker/lib/guard.js';
import { configure } from './worker/lib/identity.js';
import { ensureAlarm, isWatchdog } from './worker/lib/keepalive.js';
import { connect, onClosed, onCommand, revive, sendPilotEvent } from './worker/lib/native.js';
import { forgetScripted, personClicked } from './worker/lib/person.js';
import { scriptVerdict, scriptsSeen, syncScriptHeaders } from './worker/lib/script_verdicts.js';
import { loadFailed, normalizePattern, requestFailed, rescope } from './worker/lib/sites.js';
import { KEY, applyStorageChanges, getPilot, getRedaction, getScope, loadState, restrictStorage, setPilot, setScope, setTrackedTab, untrack } from './worker/lib/state.js';
import { syncTelemetry } from './worker/lib/telemetry.js';
import { pauseWalks, stopWalks } from './worker/lib/walks.js';

const POPUP_URL = chrome.runtime.getURL('popup.html');

/** Only TabPilot's own popup page (as the action popup or opened in a tab) may change settings. */
function fromPopup(sender) {
  return sender.id === chrome.runtime.id && typeof sender.url === 'string' && sender.url.split(/[?#]/)[0] === POPUP_URL;
}

/** The popup's changes to the sites the pilot may act on: the scope after the change, or an error. */
async function changeScope(msg) {
  const scope = await getScope();
  if (msg.all === true) return { all: true, sites: scope.sites };
  const site = msg.site === undefined ? null : normalizePattern(msg.site);
  if (msg.site !== undefined && !site) return { error: `not a site: ${JSON.stringify(msg.site)} (e.g. jira.acme.com, *.acme.com, intranet:8080)` };
  let sites = scope.sites;
  if (site && msg.remove === true) sites = sites.filter((s) => s !== site);
  else if (site) sites = [...new Set([...sites, site])];
  // Allowing one site keeps "all sites" as it is; choosing "only" (all: false) narrows.
  return { all: msg.all === false ? false : scope.all, sites };
}

async function onPopupMessage(msg) {
  switch (msg && msg.type) {
    case 'set_pilot': {
      if (typeof msg.enabled !== 'boolean') return { ok: false, error: 'enabled must be a boolean' };
      // Off stops running commands and refuses new ones from here on, before storage has it.
      if (!msg.enabled) {
        abortPiloted();
        forgetAll();
      }
      // On comes with its scope ("this site" or "all sites"), written before the pilot is.
      if (msg.enabled && msg.scope) {
        const scope = await changeScope(msg.scope);
        if (scope.error) return { ok: false, error: scope.error };
        await setScope(scope);
      }
      await setPilot(msg.enabled);
      return { ok: true, pilot: msg.enabled };
    }
    case 'set_sites': {
      const scope = await changeScope(msg);
      if (scope.error) return { ok: false, error: scope.error };
      const stored = await setScope(scope);
      const req = await chrome.storage.session.get(KEY.SITE_REQUEST);
      const asked = req[KEY.SITE_REQUEST];
      if (asked && (msg.all === true || (normalizePattern(asked.site) === normalizePattern(msg.site) && msg.remove !== true))) {
        await chrome.storage.session.remove(KEY.SITE_REQUEST);
      }
      return { ok: true, scope: stored };
    }
    case 'set_script_consent': {
      const out = await setScriptSite(msg.site, msg.allowed);
      return out.error ? { ok: false, error: out.error } : { ok: true, script_sites: out.sites };
    }
    case 'dismiss_site_request':
      await chrome.storage.session.remove(KEY.SITE_REQUEST);
      return { ok: true };
    case 'track_tab': {
      if (msg.tab_id === null) {
        await setTrackedTab(null);
        return { ok: true, tracked_tab_id: null };
      }
      const tab = await chrome.tabs.get(msg.tab_id).catch(() => null);
      if (!tab) return { ok: false, error: `no tab ${msg.tab_id}` };
      await setTrackedTab(tab);
      return { ok: true, tracked_tab_id: tab.id };
    }
    case 'reconnect':
      connect();
      return { ok: true };
    default:
      return { ok: false, error: `unknown request ${JSON.stringify(msg && msg.type)}` };
  }
}

/** Our own content script (page/redact_early.js) in a tab's document, not a page of the extension. */
function fromOwnContentScript(sender) {
  return sender.id === chrome.runtime.id && Boolean(sender.tab) && !String(sender.url || '').startsWith(chrome.runtime.getURL(''));
}

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // The guard in a document asks for the redaction list as the document starts: only the list, read-only.
  if (msg && msg.type === 'redaction_list' && fromOwnContentScript(sender)) {
    getRedaction().then((selectors) => sendResponse({ selectors }), () => sendResponse({ selectors: null }));
    return true;
  }
  // The guard saw the person click a link (page/person_gesture.js): lets through only that load.
  if (msg && msg.type === 'person_clicked' && fromOwnContentScript(sender)) {
    personClicked(sender.tab.id, msg.url, sender.documentId || null).catch((err) => console.warn('TabPilot: person click:', err));
    return false;
  }
  // The page agent asks for (or tells) what a script file was found to name (page/script_names.js).
  if (msg && msg.type === 'script_verdict' && fromOwnContentScript(sender)) {
    sendResponse(scriptVerdict(sender.origin, msg));
    return false;
  }
  if (msg && msg.type === 'scripts_seen' && fromOwnContentScript(sender)) {
    sendResponse(scriptsSeen(sender.origin));
    return false;
  }
  if (isAskPage(sender)) {
    onAskPageMessage(msg || {}, sender).then(sendResponse, (err) => sendResponse({ ok: false, error: String(err) }));
    return true;
  }
  if (!fromPopup(sender)) {
    sendResponse({ ok: false, error: 'only the TabPilot popup may change settings' });
    return false;
  }
  onPopupMessage(msg).then(sendResponse, (err) => sendResponse({ ok: false, error: String(err) }));
  return true;
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local') return;
  applyStorageChanges(changes);
  if (changes[KEY.SITES]) rescope().catch((err) => console.warn('TabPilot: cannot apply the new sites:', err));
  // Pages read ahead for a walk outlive neither the pilot nor the sites they were read under.
  if (changes[KEY.SITES] || (changes[KEY.PILOT] && changes[KEY.PILOT].newValue !== true)) stopWalks();
  if ((changes[KEY.REDACT] || changes[KEY.REDACT_EXTRA]) && !changes[KEY.PILOT]) getPilot().then(syncGuard, () => {});
  if (changes[KEY.SITES] || changes[KEY.PILOT]) {
    const off = changes[KEY.PILOT] && changes[KEY.PILOT].newValue !== true;
    (off ? releaseTabs() : syncRules()).catch((err) => console.warn('TabPilot: cannot update the site blocks:', err));
  }
  if (!changes[KEY.PILOT]) return;
  const enabled = changes[KEY.PILOT].newValue === true;
  if (!enabled) abortPiloted();
  if (!enabled) closeAllAsks(); // off means off: no page keeps asking, nothing typed is kept
  if (!enabled) forgetAll();
  if (!enabled) releaseAll().catch((err) => console.warn('TabPilot: cannot close the background tabs:', err));
  sendPilotEvent(enabled);
  syncTelemetry(enabled);
  syncScriptHeaders(enabled);
  syncGuard(enabled);
  showPilotIcon(enabled);
});

chrome.tabs.onCreated.addListener((tab) => {
  tabCreated(tab).catch((err) => console.warn('TabPilot: cannot update the site blocks:', err));
});

chrome.tabs.onRemoved.addListener((tabId) => {
  askTabGone(tabId);
  untrack(tabId).catch((err) => console.warn('TabPilot: cannot update the tracked tab:', err));
  tabGone(tabId).catch((err) => console.warn('TabPilot: cannot update the site blocks:', err));
  forgetScripted(tabId).catch((err) => console.warn('TabPilot: person click:', err));
});

// The browser blocks loads outside the scope in piloted tabs with rules that outlive this worker
// (blocker.js); hearing the block from the first moment takes the tab back even when the worker was
// stopped while it happened, before any command comes. Main frames only: a failed page load is rare.
chrome.webRequest.onErrorOccurred.addListener(requestFailed, { urls: ['<all_urls>'], types: ['main_frame'] });
chrome.webNavigation.onErrorOccurred.addListener(loadFailed);

chrome.alarms.onAlarm.addListener((alarm) => {
  // Starting this worker was the alarm's job; a live one with a port (or a retry pending) has none.
  if (isWatchdog(alarm)) revive();
});

// These wake the worker when the browser starts or the extension is installed or updated; the
// top-level code below does the work.
chrome.runtime.onStartup.addListener(() => {});
chrome.runtime.onInstalled.addListener(() => {});

onCommand(dispatch);
onClosed(() => {
  abortAll();
  pauseWalks();
});
loadState().catch((err) => console.warn('TabPilot: cannot read settings:', err));
getPilot().then((on) => {
  syncTelemetry(on);
  syncScriptHeaders(on);
  syncGuard(on);
  showPilotIcon(on);
}, () => {});
restrictStorage();
configure();
connect();
ensureAlarm().catch((err) => console.warn('TabPilot: no watchdog alarm:', err));
