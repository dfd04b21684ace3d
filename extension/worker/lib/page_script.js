// Running the agent's JavaScript in a tab's MAIN world, shared by execute_js and extract_script. The
// page runner (main_world/run_script.js) serializes the value itself and hands back one string: far
// cheaper than structured cloning objects.
//
// The fast way is executeScript + new Function in the page (~1 ms). A page whose CSP forbids eval
// answers {csp} instead, and the script then runs through the debugger (lib/debugger_eval.js). A
// script that outlives its timeout ends in a timeout error, after the tab has been made usable again
// (lib/recover.js); the error's data says what was done.
import { ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { runInPage } from '../../main_world/run_script.js';
import { checkScriptConsent } from './consent.js';
import { bounded } from './deadline.js';
import { evaluateWithDebugger } from './debugger_eval.js';
import { CommandError } from './errors.js';
import { scriptRuns } from './person.js';
import { recoverTab } from './recover.js';
import { onTab, tabFailure } from './target.js';

// The host holds at most MAX_RESULT_BYTES of one result; a JSON text with more UTF-16 units than that
// has at least as many UTF-8 bytes, so it is refused in the page before it is moved at all.
export const MAX_RESULT_CHARS = MAX_RESULT_BYTES;

class ScriptTimeout extends Error {}

/**
 * Run the page runner with `args` (runInPage's arguments) in the tab msg.tab_id names; when the page
 * forbids eval, or to find where a script that does not compile goes wrong, evaluate
 * `sources(runnerSource)` (see evaluateWithDebugger) through the debugger instead. Answers {tabId, out}
 * with the runner's answer; a timeout, a result over the limit or a tab that gives no answer is thrown.
 */
export async function runScript(msg, { args, sources, timeoutMs, signal }) {
  let tabId = null;
  const inject = async (id) => {
    tabId = id;
    signal.throwIfAborted(); // e.g. the pilot went off while the tab was being chosen
    await checkScriptConsent(id, signal);
    await scriptRuns(id); // the person's link clicks in this document are no longer told from its work
    const injected = chrome.scripting.executeScript({ target: { tabId: id }, world: 'MAIN', func: runInPage, args });
    return bounded(injected, { timeoutMs, signal, onTimeout: () => new ScriptTimeout() });
  };
  let results;
  try {
    results = await onTab(msg.tab_id, inject, { signal });
  } catch (err) {
    if (err instanceof ScriptTimeout) {
      throw new CommandError(ERR.TIMEOUT, `the script did not finish within ${timeoutMs} ms`, { data: await recoverTab(tabId) });
    }
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot run a script in tab ${tab.id} (${tab.url || 'no url'})`);
  }
  let out = results && results[0] ? results[0].result : undefined;
  const viaDebugger = () => evaluateWithDebugger(tabId, sources(String(runInPage)), { timeoutMs, signal });
  if (out && typeof out.csp === 'string') {
    out = await viaDebugger();
  } else if (out && out.syntax) {
    // new Function's SyntaxError carries no position; V8 compiling the same code for the debugger
    // does. Nothing runs: the code does not compile.
    const syntax = out.syntax;
    try {
      out = await viaDebugger();
    } catch (err) {
      if (signal.aborted) throw err;
      out = { thrown: syntax }; // no debugger (policy, DevTools open): the error without a line
    }
  }
  if (out && typeof out.too_large === 'number') {
    throw new CommandError(ERR.RESULT_TOO_LARGE, `the result's JSON text has ${out.too_large} characters, over the limit of ${MAX_RESULT_CHARS}: return less (filter or slice it in the script)`);
  }
  if (out === undefined || out === null) {
    throw new CommandError(ERR.SCRIPT_ERROR, `tab ${tabId} returned no result (did the page navigate away?)`);
  }
  return { tabId, out };
}
