// Running one command of the page agent (page/*.js) in a tab: the agent is injected into the
// document's isolated world the first time, after that one small executeScript reaches it (~1 ms).
// Every call carries the user's redaction selectors and secret patterns, so the page never uses stale
// ones.
import { ERR } from '../protocol.js';
import { bounded, timeoutParam } from './deadline.js';
import { CommandError } from './errors.js';
import { JsonText } from './reply.js';
import { getPatterns, getRedaction } from './state.js';
import { onTab, tabFailure } from './target.js';

// Run in this order; each page file registers its commands on the agent that core.js creates and
// declares (agent.use) the names it takes from the files before it and the ones it adds. They are
// injected as one file, AGENT_BUNDLE: these files in this order, made by tabpilot.assets (Chrome reads
// each file of an injection on its own: one file saves a fresh document 5-13 ms).
export const AGENT_BUNDLE = 'agent.js';
export const AGENT_FILES = [
  'page/core.js', 'page/patterns.js', 'page/redact.js', 'page/redact_scrub.js', 'page/redact_early.js', 'page/person_gesture.js', 'page/safe_selector.js', 'page/virtual.js', 'page/extract.js', 'page/redraw.js',
  'page/paginate.js', 'page/onward.js', 'page/script_names.js', 'page/next_link.js', 'page/places.js', 'page/fetch.js', 'page/fetch_walk.js', 'page/fetch_details.js',
  'page/refs.js', 'page/controls.js', 'page/snapshot.js', 'page/snapshot_cmd.js',
  'page/actions.js', 'page/held.js', 'page/keyboard.js', 'page/form.js', 'page/wait.js', 'page/main_content.js',
  'page/numbers.js', 'page/suggest_fields.js', 'page/suggest_paging.js', 'page/skeleton.js', 'page/suggest.js', 'page/mask.js',
  'page/feed_end.js', 'page/scroll_load.js',
];

const arriving = new Map(); // tabId -> {documentId, done: Promise}, while an injection is on its way

/** Inject the page agent into tab `tabId`'s document `documentId` (once per document), not waiting for it. */
export function injectAgent(tabId, documentId = null) {
  const before = arriving.get(tabId);
  if (before && documentId && before.documentId === documentId) return;
  const target = documentId ? { tabId, documentIds: [documentId] } : { tabId, frameIds: [0] };
  const done = chrome.scripting.executeScript({ target, files: [AGENT_BUNDLE], injectImmediately: true }).then(() => true, () => false);
  arriving.set(tabId, { documentId, done });
  done.then(() => {
    if (arriving.get(tabId)?.done === done) arriving.delete(tabId);
  });
}

/** The injection on its way into tab `tabId`, if one is (a command waits for it rather than inject twice). */
export function arrival(tabId) {
  return arriving.get(tabId)?.done ?? null;
}

/** Tab `tabId` is gone: nothing is on its way into it. */
export function forgetArrival(tabId) {
  arriving.delete(tabId);
}

// Runs in the page (isolated world): self-contained, only its source travels.
function callAgent(name, args) {
  const agent = globalThis.__tabpilotAgent;
  // The guard part alone (worker/lib/guard.js, from document_start) has only a few commands.
  return agent && agent.commands[name] ? agent.run(name, args) : { missing: true };
}

async function execute(tabId, frameId, name, args) {
  const target = { tabId, frameIds: [frameId] };
  // The agent may be on its way already (injectAgent, ahead.js): wait for it rather than inject it twice.
  const coming = frameId === 0 ? arrival(tabId) : null;
  if (coming) await coming;
  let [first] = await chrome.scripting.executeScript({ target, func: callAgent, args: [name, args] });
  if (first && first.result && first.result.missing) {
    await chrome.scripting.executeScript({ target, files: [AGENT_BUNDLE] });
    [first] = await chrome.scripting.executeScript({ target, func: callAgent, args: [name, args] });
  }
  return first ? first.result : undefined;
}

/** The error for a tab that shows no web page (about:blank, a browser page): navigate it first. */
async function notAWebPage(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  const url = tab ? tab.url || tab.pendingUrl || '' : '';
  if (!tab || /^(https?|file):/i.test(url)) return null;
  return new CommandError(ERR.NAVIGATION_FAILED, `tab ${tabId} shows ${url || 'no page'}, not a web page a script may read (browser pages, about: pages and the web store are off limits): navigate it to the site first (interact navigate url), or pass the tab_id of a tab that shows it`, { data: { tab_id: tabId, url } });
}

/**
 * Run page command `name` with `args` in the tab `msg.tab_id` names (else the tracked, else the active
 * tab), bounded by msg.timeout_ms. Answers the command's value ({tab_id} added when it is an object);
 * a page failure becomes a CommandError with the page's code. A value {json: text} is passed on as
 * JSON text without being parsed here. `onTab(tabId)` runs once the tab is known, before the page
 * command starts (e.g. to watch for the navigation the command may cause).
 */
export async function inPage(msg, name, args, { signal, fallbackTimeoutMs = 5_000, frameId = 0, onTab: onTabId = null } = {}) {
  const timeoutMs = timeoutParam(msg.timeout_ms, fallbackTimeoutMs);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const redact = await getRedaction();
  const patterns = await getPatterns();
  let tabId = null;
  const run = (id) => {
    tabId = id;
    signal?.throwIfAborted();
    onTabId?.(id);
    return execute(id, frameId, name, { ...args, redact, patterns, timeout_ms: timeoutMs });
  };
  let out;
  try {
    out = await bounded(onTab(msg.tab_id, run, { signal }), {
      timeoutMs,
      signal,
      onTimeout: () =>
        new CommandError(ERR.TIMEOUT, `${name} did not finish within ${timeoutMs} ms`, {
          retryable: true,
          data: { tab_id: tabId },
        }),
    });
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    const failure = await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot reach the page in tab ${tab.id} (${tab.url || 'no url'}; browser pages and the web store are off limits)`);
    throw failure.code === ERR.SCRIPT_ERROR ? (await notAWebPage(tabId)) || failure : failure;
  }
  if (!out) throw new CommandError(ERR.TAB_CLOSED, `tab ${tabId} gave no answer (it navigated away or closed)`, { data: { tab_id: tabId } });
  if (out.error) {
    const { code, message, data } = out.error;
    throw new CommandError(code || ERR.INTERNAL_ERROR, message, { data: { ...(data || {}), tab_id: tabId } });
  }
  const value = out.ok;
  if (value && typeof value === 'object' && typeof value.json === 'string' && Object.keys(value).length === 1) {
    return new JsonText(value.json);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return { ...value, tab_id: tabId };
  return value;
}
