// Run the agent's JavaScript in the page's MAIN world and answer with its JSON-safe value: an
// expression, or a function body when it is not one. The running (fast path, strict-CSP fallback,
// timeouts and recovery) is lib/page_script.js. The value, error and stack are scrubbed in the page of
// the secrets it holds and of secret-shaped text (main_world/run_script.js): a guard against accidents, not
// against a script written to leak (it can read anything the page can and encode it).
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { MAX_RESULT_CHARS, runScript } from '../lib/page_script.js';
import { knownSecrets } from '../lib/known_secrets.js';
import { JsonText } from '../lib/reply.js';
import { allows, notAllowed, refusalHeard } from '../lib/sites.js';
import { getPatterns, getRedaction, getScope } from '../lib/state.js';
import { onTab } from '../lib/target.js';

export const name = 'execute_js';
export const needsPilot = true;

/** The debugger's expressions: the runner called with the agent's code compiled in, as an expression first. */
function sources(runner, script, rules) {
  const tail = `, 10000, null, ${JSON.stringify(rules)}`;
  const wrap = (body) => ({ expression: `(${runner})(null, ${MAX_RESULT_CHARS}, async function () {\n${body}}${tail})` });
  return [wrap(`return (${script.replace(/[\s;]+$/, '')}\n)`), wrap(`${script}\n`)];
}

// A script's `location.href = …` starts its load as the script runs, but the browser may report it only
// after the script has answered: the page's own navigate event (Navigation API, seen from the isolated
// world too) tells at once. Set before the script runs, read after it answered.
function listenForLoads() {
  globalThis.__tabpilotLoad = null;
  if (globalThis.__tabpilotLoadWatch || !globalThis.navigation) return;
  globalThis.__tabpilotLoadWatch = true;
  navigation.addEventListener('navigate', (e) => {
    if (!e.hashChange && !e.downloadRequest) globalThis.__tabpilotLoad = e.destination.url;
  });
}

function loadStarted() {
  const url = globalThis.__tabpilotLoad;
  globalThis.__tabpilotLoad = null;
  return { watched: globalThis.__tabpilotLoadWatch === true, url };
}

const inIsolated = async (tabId, func) => {
  const [got] = await chrome.scripting.executeScript({ target: { tabId }, func }).catch(() => []);
  return got ? { documentId: got.documentId, ...got.result } : null;
};

/** A load the script started to a site outside the scope: refused by the browser, so not a success. */
async function refusedLoad(tabId, before, signal) {
  const after = await inIsolated(tabId, loadStarted);
  signal.throwIfAborted(); // the site guard heard of the load first
  const scope = await getScope();
  if (after && after.documentId === before.documentId && after.watched) {
    if (after.url && !allows(scope, after.url)) {
      refusalHeard(tabId, after.url);
      throw notAllowed(after.url, tabId);
    }
    return;
  }
  // The script's document is gone already: where the tab went says it.
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  for (const url of [tab?.pendingUrl, tab?.url]) {
    if (url && !allows(scope, url)) {
      refusalHeard(tabId, url);
      throw notAllowed(url, tabId);
    }
  }
}

export async function run(msg, { signal }) {
  if (typeof msg.script !== 'string') throw new CommandError(ERR.INVALID_PARAMS, 'script must be a string');
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.execute_js.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const rules = { redact: await getRedaction(), patterns: await getPatterns(), values: await knownSecrets(msg, signal) };
  // Only where some sites are outside the scope can a load the script starts be refused.
  let watch = null;
  if (!(await getScope()).all) {
    const tabId = await onTab(msg.tab_id, async (id) => id, { signal });
    watch = { tabId, before: await inIsolated(tabId, listenForLoads) };
    msg = { ...msg, tab_id: tabId };
  }
  let out;
  try {
    ({ out } = await runScript(msg, {
      args: [msg.script, MAX_RESULT_CHARS, null, 10_000, null, rules],
      sources: (runner) => sources(runner, msg.script, rules),
      timeoutMs,
      signal,
    }));
  } catch (err) {
    if (watch?.before) await refusedLoad(watch.tabId, watch.before, signal); // it says why, if it can
    throw err;
  }
  if (watch?.before) await refusedLoad(watch.tabId, watch.before, signal);
  if (out.thrown) return { success: false, error: out.thrown.error, stack: out.thrown.stack };
  if (typeof out !== 'string') throw new CommandError(ERR.SCRIPT_ERROR, 'the page answered something unexpected');
  return new JsonText(out);
}
