// Run the agent's JavaScript in the page's MAIN world and answer with its JSON-safe value. The page
// serializes the value itself and hands back one string: far cheaper than structured cloning objects.
import { ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { JsonText } from '../lib/reply.js';
import { onTab, tabFailure } from '../lib/target.js';
import { runInPage } from './page/run_script.js';

// The host holds at most MAX_RESULT_BYTES of one result; a JSON text with more UTF-16 units than that
// has at least as many UTF-8 bytes, so it is refused in the page before it is moved at all.
const MAX_RESULT_CHARS = MAX_RESULT_BYTES;

export const name = 'execute_js';
export const needsPilot = true;

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
    return bounded(injected, {
      timeoutMs,
      signal,
      onTimeout: () =>
        new CommandError(ERR.TIMEOUT, `the script did not finish within ${timeoutMs} ms`, { data: { tab_id: id } }),
    });
  };
  let results;
  try {
    results = await onTab(msg.tab_id, inject);
  } catch (err) {
    if (err instanceof CommandError || tabId === null) throw err;
    throw await tabFailure(err, tabId, ERR.SCRIPT_ERROR, (tab) => `cannot run a script in tab ${tab.id} (${tab.url || 'no url'})`);
  }
  const text = results && results[0] ? results[0].result : undefined;
  if (text && typeof text.too_large === 'number') {
    throw new CommandError(ERR.RESULT_TOO_LARGE, `the result's JSON text has ${text.too_large} characters, over the limit of ${MAX_RESULT_CHARS}: return less (filter or slice it in the script)`);
  }
  if (typeof text !== 'string') {
    throw new CommandError(ERR.SCRIPT_ERROR, `tab ${tabId} returned no result (did the page navigate away?)`);
  }
  return new JsonText(text);
}
