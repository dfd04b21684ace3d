// The popup: the AI Web Pilot switch and the sites it may act on (only this page may change them),
// a site the agent asked for, the native host connection, versions, "track this tab" and what the
// agent did. It reads chrome.storage directly and asks the worker to write.
import { PROTOCOL_VERSION } from './worker/protocol.js';
import { ACTIVITY_KEY, WORKFLOW_KEY } from './worker/lib/activity.js';
import { describe } from './worker/lib/activity_text.js';
import { allows, siteOf } from './worker/lib/sites.js';
import { ALL_SITES, DEFAULT_REDACT, KEY } from './worker/lib/state.js';

const $ = (id) => document.getElementById(id);
const toggle = $('pilot-toggle');

// What the user can do about each reason Chrome gives for a failed native connection.
const FIXES = [
  [/not found/i, 'The host is not registered for this browser: run `tabpilot install`, then reopen this.'],
  [/forbidden/i, 'The host is registered for another extension id: run `tabpilot install` again.'],
  [/error when communicating|exited/i, 'The host failed to start or crashed: run `tabpilot doctor`.'],
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

// What the popup last read; the buttons act on it.
const seen = { pilot: false, scope: ALL_SITES, tab: null, request: null };

function ask(msg) {
  return chrome.runtime.sendMessage(msg).catch((e) => ({ ok: false, error: String(e) }));
}

function onHint(scope) {
  if (scope.all) return 'On for every site: your AI agent can open pages, read them and run scripts in this browser.';
  if (!scope.sites.length) return 'On, but no site is allowed yet: allow one below.';
  const where = scope.sites.length === 1 ? scope.sites[0] : `${scope.sites.length} sites`;
  return `On for ${where} only: your AI agent can open pages, read them and run scripts there, nowhere else.`;
}

// While "where?" is open the pilot is not on yet: the switch stands half-way and the text says so, so
// the two never disagree.
const CHOOSING_HINT = 'Not on yet: choose where your AI agent may act, or Cancel to leave it off.';

function showPilot(on, scope) {
  const choosing = !on && !$('pilot-choice').hidden;
  toggle.checked = on;
  toggle.indeterminate = choosing;
  toggle.closest('.pilot').classList.toggle('on', on);
  $('pilot-hint').textContent = on
    ? onHint(scope)
    : choosing
      ? CHOOSING_HINT
      : 'Off: your AI agent can see that TabPilot is here, but cannot read or act on pages.';
}

function showChoice(open) {
  $('pilot-choice').hidden = !open;
  // The question is the one thing to answer: the site list waits (the popup is 600 px high at most).
  document.body.classList.toggle('choosing', open);
  const site = seen.tab && siteOf(seen.tab.url);
  const button = $('pilot-this-site');
  button.disabled = !site;
  button.textContent = site ? `Only ${site}` : 'This site';
  const why = $('pilot-this-site-why');
  why.hidden = Boolean(site);
  why.textContent = site ? '' : 'This tab shows no web site (browser and extension pages have none): choose All sites, or open the site first.';
  showPilot(seen.pilot, seen.scope);
}

/** The pending request: the site the agent was refused, while it is still not allowed. */
function showRequest(request, scope) {
  const box = $('site-request');
  const site = request && typeof request.site === 'string' ? request.site : null;
  const pending = site && !allows(scope, `http://${site}/`) && !allows(scope, `https://${site}/`);
  box.hidden = !pending;
  seen.request = pending ? site : null;
  if (pending) {
    $('site-request-name').textContent = site;
    $('site-request-allow').textContent = `Allow ${site}`;
  }
}

function showSites(scope) {
  $('scope-all').checked = scope.all;
  $('scope-only').checked = !scope.all;
  const list = $('site-list');
  list.classList.toggle('inactive', scope.all);
  list.replaceChildren(
    ...scope.sites.map((site) => {
      const li = el('li', '', site);
      const remove = el('button', 'small quiet remove', 'Remove');
      remove.type = 'button';
      remove.dataset.site = site;
      remove.setAttribute('aria-label', `Remove ${site}`);
      li.append(remove);
      return li;
    }),
  );
  $('sites-note').textContent = scope.all
    ? (scope.sites.length ? 'Every site is allowed; this list applies when you choose Only these.' : 'Your agent may act on any site you can open.')
    : (scope.sites.length ? '' : 'No site is allowed yet: allow this tab’s site, or add one.'); // "Only these" says it
  const site = seen.tab && siteOf(seen.tab.url);
  const row = $('this-site');
  row.hidden = !site;
  if (site) {
    $('this-site-name').textContent = site;
    const listed = scope.sites.includes(site);
    const button = $('this-site-button');
    button.textContent = listed ? 'Remove' : 'Allow';
    button.dataset.action = listed ? 'remove' : 'allow';
  }
}

function showConnection(conn) {
  const box = $('connection');
  box.replaceChildren();
  box.className = 'connection';
  const state = conn && conn.state;
  const pill = $('conn-pill');
  pill.className = `pill ${state === 'connected' ? 'ok' : state ? 'bad' : ''}`;
  pill.textContent = state === 'connected' ? 'Connected' : state ? 'Not connected' : 'Connecting…';
  box.hidden = state === 'connected';
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

const isOwn = (tab) => (tab.url || tab.pendingUrl || '').startsWith(chrome.runtime.getURL(''));

/**
 * The tab the popup speaks of: the active tab of its window, or, when this popup is itself open as
 * a tab, the tab used last before it (the one the person came from).
 */
async function activeTab() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (tab && !isOwn(tab)) return tab;
  const others = (await chrome.tabs.query({ currentWindow: true })).filter((t) => !isOwn(t));
  return others.length ? others.reduce((a, b) => ((b.lastAccessed || 0) > (a.lastAccessed || 0) ? b : a)) : null;
}

const webPage = (tab) => Boolean(tab && /^https?:/.test(tab.url || ''));

async function showTracking(trackedId, trackedUrl, scope) {
  const button = $('track-tab');
  const tab = seen.tab;
  let why = '';
  if (trackedId !== undefined && trackedId !== null) {
    button.textContent = 'Stop tracking';
    button.disabled = false;
    $('tracked').textContent = siteOf(trackedUrl) || trackedUrl || `tab ${trackedId}`;
  } else {
    button.textContent = 'Track this tab';
    $('tracked').textContent = '';
    if (!webPage(tab)) why = 'Track this tab is off: this tab shows no web page (browser and extension pages cannot be tracked).';
    else if (!allows(scope, tab.url)) why = `Track this tab is off: ${siteOf(tab.url)} is not among the allowed sites.`;
    button.disabled = Boolean(why);
  }
  $('track-why').textContent = why;
}

/** The per-site consent to the agent's scripts, for the site this tab shows. */
function showScripts(list) {
  const site = webPage(seen.tab) ? siteOf(seen.tab.url) : null;
  const allowed = Array.isArray(list) && list.includes(site);
  $('scripts-row').hidden = !site;
  $('scripts-why').hidden = !site || allowed;
  $('scripts-site').textContent = site || '';
  $('scripts-allow').checked = allowed;
}

const SHOWN_ACTIONS = 20;

function showActivity(entries) {
  const list = $('activity-log');
  const recent = (Array.isArray(entries) ? entries : []).slice(-SHOWN_ACTIONS).reverse();
  // The same thing done again within the minute is one row ("×3"): a scrape's many reads stay short.
  const rows = [];
  for (const e of recent) {
    const time = new Date(e.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
    const { what, outcome } = describe(e);
    const last = rows[rows.length - 1];
    if (last && last.time === time && last.what === what && last.outcome === outcome) last.times += 1;
    else rows.push({ time, what, outcome, times: 1, at: e.at });
  }
  list.replaceChildren(
    ...rows.map((r) => {
      const li = document.createElement('li');
      li.append(el('span', 'time', r.time), el('span', 'what', r.times > 1 ? `${r.what} ×${r.times}` : r.what));
      if (r.outcome) li.append(el('span', 'bad', r.outcome));
      li.title = new Date(r.at).toLocaleString();
      return li;
    }),
  );
  $('activity-empty').hidden = recent.length > 0;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The scrape the host runs or ran last: its name, state and counts (never its data). */
function showWorkflow(w) {
  const line = $('workflow');
  line.hidden = !w || typeof w.status !== 'string';
  if (line.hidden) return;
  const time = new Date(w.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
  const steps = Number.isFinite(w.steps_total) ? `step ${w.steps_completed ?? 0}/${w.steps_total}` : '';
  const counts = [steps, plural(w.pages ?? 0, 'page'), plural(w.rows ?? 0, 'row')].filter(Boolean).join(' · ');
  line.textContent = `${time} scrape ${w.label || w.correlation_id} ${w.status} · ${counts}`;
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

function asScope(value) {
  const sites = value && Array.isArray(value.sites) ? value.sites.filter((s) => typeof s === 'string') : [];
  return { all: !(value && value.all === false), sites };
}

async function refresh() {
  const local = await chrome.storage.local.get(['pilot', 'trackedTabId', 'trackedTabUrl', KEY.REDACT, KEY.SITES, KEY.SCRIPT_SITES]);
  const session = await chrome.storage.session.get(['connection', ACTIVITY_KEY, WORKFLOW_KEY, KEY.SITE_REQUEST]);
  seen.pilot = local.pilot === true;
  seen.scope = asScope(local[KEY.SITES]);
  seen.tab = await activeTab();
  showPilot(seen.pilot, seen.scope);
  showSites(seen.scope);
  showRequest(session[KEY.SITE_REQUEST], seen.scope);
  showConnection(session.connection);
  showActivity(session[ACTIVITY_KEY]);
  showWorkflow(session[WORKFLOW_KEY]);
  showRedaction(local[KEY.REDACT]);
  showScripts(local[KEY.SCRIPT_SITES]);
  await showActing();
  await showTracking(local.trackedTabId, local.trackedTabUrl, seen.scope);
  document.body.dataset.scope = seen.scope.all ? 'all' : 'only'; // what storage holds, not the radio's click
  document.body.dataset.ready = 'true'; // for tests and screenshots: every part has been drawn once
}

async function changeSites(msg) {
  const answer = await ask({ type: 'set_sites', ...msg });
  $('sites-status').textContent = answer && answer.ok ? '' : (answer && answer.error) || 'not saved';
  return answer;
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

async function setPilot(wanted, scope = null) {
  const answer = await ask({ type: 'set_pilot', enabled: wanted, ...(scope ? { scope } : {}) });
  const applied = Boolean(answer && answer.ok);
  if (applied) seen.pilot = wanted;
  showChoice(false);
  if (!applied) {
    showPilot(!wanted, seen.scope);
    $('pilot-hint').textContent = `Not changed: ${(answer && answer.error) || 'no answer from TabPilot'}`;
  }
  // What the service worker has applied (the checkbox moves at the click, before the worker has it).
  toggle.dataset.applied = String(applied ? wanted : !wanted);
}

// Switching on asks where first: this site or all sites. Switching off is immediate.
toggle.addEventListener('change', () => {
  if (!$('pilot-choice').hidden) showChoice(false); // a second click on the half-way switch: not now
  else if (toggle.checked && !seen.pilot) showChoice(true);
  else setPilot(toggle.checked);
});
$('pilot-this-site').addEventListener('click', () => setPilot(true, { site: siteOf(seen.tab && seen.tab.url), all: false }));
$('pilot-all-sites').addEventListener('click', () => setPilot(true, { all: true }));
$('pilot-cancel').addEventListener('click', () => showChoice(false));

$('site-request-allow').addEventListener('click', () => seen.request && changeSites({ site: seen.request }));
$('site-request-dismiss').addEventListener('click', () => ask({ type: 'dismiss_site_request' }));
$('scope-all').addEventListener('change', () => changeSites({ all: true }));
$('scope-only').addEventListener('change', () => changeSites({ all: false }));
$('site-list').addEventListener('click', (event) => {
  const button = event.target.closest('button.remove');
  if (button) changeSites({ site: button.dataset.site, remove: true });
});
$('this-site-button').addEventListener('click', (event) => {
  const site = siteOf(seen.tab && seen.tab.url);
  if (site) changeSites({ site, remove: event.currentTarget.dataset.action === 'remove' });
});
$('scripts-allow').addEventListener('change', async (event) => {
  const site = $('scripts-site').textContent;
  const answer = await ask({ type: 'set_script_consent', site, allowed: event.target.checked });
  $('sites-status').textContent = answer && answer.ok ? '' : (answer && answer.error) || 'not saved';
});
$('site-add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('site-add-input');
  if (!input.value.trim()) return;
  const answer = await changeSites({ site: input.value });
  if (answer && answer.ok) input.value = '';
});

$('track-tab').addEventListener('click', async () => {
  const { trackedTabId } = await chrome.storage.local.get('trackedTabId');
  const tab = trackedTabId === undefined ? await activeTab() : null;
  if (trackedTabId === undefined && !tab) return;
  await chrome.runtime.sendMessage({ type: 'track_tab', tab_id: tab ? tab.id : null });
});

// The list just opened comes into view in the scrolling part (the other one closes: they share a name).
for (const list of document.querySelectorAll('details.redaction')) {
  list.addEventListener('toggle', () => {
    if (list.open) list.scrollIntoView({ block: 'nearest' });
  });
}

chrome.storage.onChanged.addListener(() => refresh());
// The badge has no change event: look while the popup is open.
setInterval(showActing, 500);
refresh();
// Opening the popup is a good moment to retry a failed connection instead of waiting for the backoff.
chrome.runtime.sendMessage({ type: 'reconnect' }).catch(() => {});
