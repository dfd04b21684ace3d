// The popup: the AI Web Pilot switch (only this page may change it), the native host connection,
// versions, and "track this tab". It reads chrome.storage directly and asks the worker to write.
import { PROTOCOL_VERSION } from './protocol.js';
import { ACTIVITY_KEY, WORKFLOW_KEY } from './lib/activity.js';
import { DEFAULT_REDACT, KEY } from './lib/state.js';

const $ = (id) => document.getElementById(id);
const toggle = $('pilot-toggle');

// What the user can do about each reason Chrome gives for a failed native connection.
const FIXES = [
  [/not found/i, 'The TabPilot host is not registered for this browser. Run `tabpilot install`, then reopen this popup.'],
  [/forbidden/i, 'The host is registered for another extension id. Run `tabpilot install` again.'],
  [/error when communicating|exited/i, 'The host failed to start or crashed. Run `tabpilot doctor` for details.'],
];

function fixFor(reason) {
  const hit = FIXES.find(([re]) => re.test(reason || ''));
  return hit ? hit[1] : 'Run `tabpilot doctor` to check the installation.';
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.textContent = text;
  return node;
}

function showPilot(on) {
  toggle.checked = on;
  toggle.closest('.pilot').classList.toggle('on', on);
  $('pilot-hint').textContent = on
    ? 'On: your AI agent can open pages, read them and run scripts in this browser.'
    : 'Off: your AI agent can see that TabPilot is here, but cannot read or act on pages.';
}

function showConnection(conn) {
  const box = $('connection');
  box.replaceChildren();
  box.className = 'connection';
  const state = conn && conn.state;
  if (state === 'connected') {
    box.classList.add('ok');
    box.append(el('strong', '', 'Connected'), ` to the TabPilot host ${conn.host_version || ''}`);
  } else if (state === 'rejected') {
    box.classList.add('bad');
    box.append(el('strong', '', 'Protocol mismatch'));
    box.append(el('span', 'reason', conn.message || `the host does not speak protocol ${PROTOCOL_VERSION}`));
    box.append(el('span', 'fix', 'Update TabPilot and the extension to the same release.'));
  } else if (state === 'disconnected') {
    box.classList.add('bad');
    box.append(el('strong', '', 'Not connected'));
    box.append(el('span', 'reason', conn.error || 'unknown reason'));
    box.append(el('span', 'fix', fixFor(conn.error)));
  } else {
    box.append(el('strong', '', 'Connecting…'));
  }
  showVersions(conn);
}

function showVersions(conn) {
  const parts = [`Extension ${chrome.runtime.getManifest().version}`, `protocol ${PROTOCOL_VERSION}`];
  if (conn && conn.host_version) parts.push(`host ${conn.host_version}`);
  $('versions').textContent = parts.join(' · ');
}

async function activeTab() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab && !(tab.url || '').startsWith(chrome.runtime.getURL('')) ? tab : null;
}

async function showTracking(trackedId, trackedUrl) {
  const button = $('track-tab');
  const tab = await activeTab();
  if (trackedId !== undefined && trackedId !== null) {
    button.textContent = 'Stop tracking';
    button.disabled = false;
    $('tracked').textContent = trackedUrl || `tab ${trackedId}`;
  } else {
    button.textContent = 'Track this tab';
    button.disabled = !tab;
    $('tracked').textContent = '';
  }
}

const SHOWN_ACTIONS = 20;

function showActivity(entries) {
  const list = $('activity-log');
  const recent = (Array.isArray(entries) ? entries : []).slice(-SHOWN_ACTIONS).reverse();
  list.replaceChildren(
    ...recent.map((e) => {
      const li = document.createElement('li');
      const time = new Date(e.at).toLocaleTimeString([], { hour12: false });
      li.append(el('span', 'time', time), el('span', 'action', e.action), el('span', 'tab', e.tab === null ? '' : `tab ${e.tab}`));
      li.append(el('span', e.outcome === 'ok' ? 'ok' : 'bad', e.outcome));
      return li;
    }),
  );
  $('activity-empty').hidden = recent.length > 0;
}

/** The scrape the host runs or ran last: its name, state and counts (never its data). */
function showWorkflow(w) {
  const line = $('workflow');
  line.hidden = !w || typeof w.status !== 'string';
  if (line.hidden) return;
  const time = new Date(w.at).toLocaleTimeString([], { hour12: false });
  const steps = Number.isFinite(w.steps_total) ? `step ${w.steps_completed ?? 0}/${w.steps_total}` : '';
  const counts = [steps, `${w.pages ?? 0} page(s)`, `${w.rows ?? 0} row(s)`].filter(Boolean).join(', ');
  line.textContent = `${time} scrape ${w.label || w.correlation_id}: ${w.status} (${counts})`;
  line.classList.toggle('running', w.status === 'running' || w.status === 'queued');
}

async function showActing() {
  const text = await chrome.action.getBadgeText({}).catch(() => '');
  $('acting').hidden = !text;
}

function showRedaction(list) {
  const area = $('redact-list');
  if (document.activeElement === area) return; // do not overwrite what the person is typing
  area.value = (Array.isArray(list) ? list : DEFAULT_REDACT).join('\n');
}

async function refresh() {
  const local = await chrome.storage.local.get(['pilot', 'trackedTabId', 'trackedTabUrl', KEY.REDACT]);
  const session = await chrome.storage.session.get(['connection', ACTIVITY_KEY, WORKFLOW_KEY]);
  showPilot(local.pilot === true);
  showConnection(session.connection);
  showActivity(session[ACTIVITY_KEY]);
  showWorkflow(session[WORKFLOW_KEY]);
  showRedaction(local[KEY.REDACT]);
  await showActing();
  await showTracking(local.trackedTabId, local.trackedTabUrl);
}

/** Each line a CSS selector the browser accepts; an error names the first that is not. */
function parseSelectors(text) {
  const list = [...new Set(text.split('\n').map((l) => l.trim()).filter(Boolean))];
  for (const selector of list) {
    try {
      document.createDocumentFragment().querySelector(selector);
    } catch {
      return { error: `not a CSS selector: ${selector}` };
    }
  }
  return { list };
}

// The popup writes the list itself: it is the only page that may (storage is closed to content
// scripts, and no command from the host or the agent writes this key).
$('redact-save').addEventListener('click', async () => {
  const parsed = parseSelectors($('redact-list').value);
  if (parsed.error) {
    $('redact-status').textContent = parsed.error;
    return;
  }
  await chrome.storage.local.set({ [KEY.REDACT]: parsed.list });
  $('redact-status').textContent = `saved (${parsed.list.length})`;
});

$('redact-reset').addEventListener('click', async () => {
  await chrome.storage.local.remove(KEY.REDACT);
  $('redact-list').value = DEFAULT_REDACT.join('\n');
  $('redact-status').textContent = 'defaults restored';
});

toggle.addEventListener('change', async () => {
  const wanted = toggle.checked;
  const answer = await chrome.runtime.sendMessage({ type: 'set_pilot', enabled: wanted }).catch((e) => ({ ok: false, error: String(e) }));
  const applied = Boolean(answer && answer.ok);
  if (!applied) showPilot(!wanted);
  // What the service worker has applied (the checkbox moves at the click, before the worker has it).
  toggle.dataset.applied = String(applied ? wanted : !wanted);
});

$('track-tab').addEventListener('click', async () => {
  const { trackedTabId } = await chrome.storage.local.get('trackedTabId');
  const tab = trackedTabId === undefined ? await activeTab() : null;
  if (trackedTabId === undefined && !tab) return;
  await chrome.runtime.sendMessage({ type: 'track_tab', tab_id: tab ? tab.id : null });
});

chrome.storage.onChanged.addListener(() => refresh());
// The badge has no change event: look while the popup is open.
setInterval(showActing, 500);
refresh();
// Opening the popup is a good moment to retry a failed connection instead of waiting for the backoff.
chrome.runtime.sendMessage({ type: 'reconnect' }).catch(() => {});
