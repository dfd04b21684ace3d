// Running the agent's script through chrome.debugger's Runtime.evaluate: the way that works on a page
// whose Content-Security-Policy forbids eval (the agent's code reaches V8 as the debugger's own
// expression, not through eval), and whose timeout parameter stops a synchronous loop without harming
// the page.
// Attaching costs ~3 ms and, in a browser started without --silent-debugger-extension-api, shows the
// "started debugging this browser" bar until the detach at the end.
import { ERR } from '../protocol.js';
import { bounded } from './deadline.js';
import { CommandError } from './errors.js';

const VERSION = '1.3';
// Attaching takes 2-3 ms; a browser that takes longer than this is not going to run the script in time.
const ATTACH_MS = 5_000;

function message(err) {
  return String(err && err.message ? err.message : err);
}

/**
 * Evaluate in tab `tabId`'s main frame the first of `sources` ({expression, lineOffset, lines}: where
 * the agent's code starts in it and how many lines it has), or the next one when it does not compile;
 * answer what the expression answers (the page runner's JSON text or object), or {thrown: {error, stack,
 * line, column}} when evaluating it threw (a syntax error: line and column within the agent's code). A
 * synchronous part that runs past `timeoutMs` is terminated (timeout, the page intact); the whole call,
 * awaited promises included, is bounded by it too.
 */
export async function evaluateWithDebugger(tabId, sources, { timeoutMs, signal }) {
  const target = { tabId };
  const attaching = chrome.debugger.attach(target, VERSION);
  try {
    await bounded(attaching, {
      timeoutMs: Math.min(timeoutMs, ATTACH_MS),
      signal,
      onTimeout: () => new Error(`attaching took over ${Math.min(timeoutMs, ATTACH_MS)} ms`),
    });
  } catch (err) {
    // A late attach must not stay: nobody would detach it, and a headed browser would keep its bar.
    attaching.then(() => chrome.debugger.detach(target)).catch(() => {});
    if (signal && signal.aborted) throw err;
    throw new CommandError(ERR.SCRIPT_ERROR, `the page's Content-Security-Policy forbids eval and the debugger fallback is unavailable: ${message(err)} (close DevTools on that tab, or allow chrome.debugger by policy)`, {
      data: { tab_id: tabId, way: 'debugger' },
    });
  }
  const started = Date.now();
  const evaluate = (source) =>
    chrome.debugger.sendCommand(target, 'Runtime.evaluate', {
      expression: source.expression,
      awaitPromise: true,
      returnByValue: true,
      timeout: Math.max(1, timeoutMs - (Date.now() - started)),
    });
  const timedOut = () =>
    new CommandError(ERR.TIMEOUT, `the script did not finish within ${timeoutMs} ms`, {
      data: { tab_id: tabId, way: 'debugger', recovered: 'terminated', detail: 'the debugger stopped the script; the page keeps its state' },
    });
  try {
    let source = sources[0];
    const run = async () => {
      let out = await evaluate(source);
      for (const next of sources.slice(1)) {
        const thrown = out.exceptionDetails && out.exceptionDetails.exception;
        // Did not compile this way: try the next (the runner itself never throws).
        if (!thrown || thrown.className !== 'SyntaxError') break;
        source = next;
        out = await evaluate(source);
      }
      return out;
    };
    let out;
    try {
      out = await bounded(run(), { timeoutMs, signal, onTimeout: timedOut });
    } catch (err) {
      if (err instanceof CommandError || (signal && signal.aborted)) throw err;
      if (/execution was terminated/i.test(message(err))) throw timedOut();
      // Terminated by the timeout, a busy renderer now and then answers a bare "Internal error": at the
      // deadline, that is the same stop.
      if (/internal error/i.test(message(err)) && Date.now() - started >= timeoutMs - 5) throw timedOut();
      throw err;
    }
    if (out.exceptionDetails) {
      const details = out.exceptionDetails;
      const exc = details.exception || {};
      const error = exc.description ? String(exc.description).split('\n')[0] : details.text;
      // 0-based positions in the whole expression; the agent's code starts lineOffset lines in.
      const lines = source.lines || Infinity;
      const line = Number.isInteger(details.lineNumber) ? Math.min(Math.max(details.lineNumber + 1 - (source.lineOffset || 0), 1), lines) : null;
      const column = line !== null && Number.isInteger(details.columnNumber) ? details.columnNumber + 1 : null;
      return { thrown: { error, stack: String(exc.description || ''), line, column } };
    }
    return out.result ? out.result.value : undefined;
  } finally {
    chrome.debugger.detach(target).catch(() => {}); // already gone with a closed tab
  }
}
