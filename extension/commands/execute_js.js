// Run the agent's JavaScript in the page's MAIN world and answer with its JSON-safe value. The page
// serializes the value itself and hands back one string: far cheaper than structured cloning objects.
//
// The fast way is executeScript + new Function in the page (~1 ms). A page whose CSP forbids eval
// answers {csp} instead, and the script then runs through the debugger (lib/debugger_eval.js). A
// script that outlives timeout_ms ends in a timeout error, after the tab has been made usable again
// (lib/recover.js); the error's data says what was done.
import { ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { evaluateWithDebugger } from '../lib/debugger_eval.js';
import { CommandError } from '../lib/errors.js';
import { recoverTab } from '../lib/recover.js';
import { JsonText } from '../lib/reply.js';
import { onTab, tabFailure } from '../lib/target.js';
import { runInPage } from './page/run_script.js';

// The host holds at most MAX_RESULT_BYTES of one result; a JSON text with more UTF-16 units than that
// has at least as many UTF-8 bytes, so it is refused in the page before it is moved at all.
const MAX_RESULT_CHARS = MAX_RESULT_BYTES;

export const name = 'execute_js';
export const needsPilot = true;

class ScriptTimeout extends Error {}

export async function run(msg, { signal }) {
  if (typeof msg.script !== 'string') throw new CommandError(ERR.INVALID_PARAMS, 'script must be a string');
  const timeoutMs = timeoutParam(msg.timeout_ms, 5_000);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  let tabId = null;
  const inject = (id) => {
    tabId = id;
    signal.throwIfAborted(); // e.g. the pilot went off while the tab was being chosen
    const injected = chrome.scripting.executeScript({
      target: { tabId: id },
      world: 'MAIN',
      func: runInPage,
      args: [msg.script, MAX_RESULT_CHARS],
    });
    return bounded(injected, { timeoutMs, signal, onTimeout: () => new ScriptTimeout() });
  };
  let results;
  try {
    results = await onTab(msg.tab_id, inject);
  } catch (err) {
    if (err instanceof ScriptTimeout) {
      throw new CommandError(ERR.TIMEOUT, `the script did not finish within ${timeoutMs} ms`, { data: await recoverTab(tabId) });
    }
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot run a script in tab ${tab.id} (${tab.url || 'no url'})`);
  }
  let text = results && results[0] ? results[0].result : undefined;
  if (text && typeof text.csp === 'string') {
    text = await evaluateWithDebugger(tabId, msg.script, { runner: runInPage, maxChars: MAX_RESULT_CHARS, timeoutMs, signal });
  }
  if (text && typeof text.too_large === 'number') {
    throw new CommandError(ERR.RESULT_TOO_LARGE, `the result's JSON text has ${text.too_large} characters, over the limit of ${MAX_RESULT_CHARS}: return less (filter or slice it in the script)`);
  }
  if (typeof text !== 'string') {
    throw new CommandError(ERR.SCRIPT_ERROR, `tab ${tabId} returned no result (did the page navigate away?)`);
  }
  return new JsonText(text);
}
