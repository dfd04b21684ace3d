// An agent-written extractor: a function body of `root` (the element css_selector matches, else the
// document) run in the page's MAIN world, fast path or strict-CSP fallback alike (lib/page_script.js).
// Known secrets are scrubbed from its value in the page, before it leaves (main_world/run_script.js). A
// failure says what to fix: the thrown error with its line and column in the agent's script.
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { MAX_RESULT_CHARS, runScript } from '../lib/page_script.js';
import { knownSecrets } from '../lib/known_secrets.js';
import { JsonText } from '../lib/reply.js';
import { getPatterns, getRedaction } from '../lib/state.js';
import { EXTRACTOR_SOURCE } from '../../main_world/run_script.js';

export const name = 'extract_script';
export const needsPilot = true;

/** The debugger's expression: the runner called with the agent's function; where the script starts in it. */
function source(runner, extractor, script) {
  const head = `(${runner})(null, ${MAX_RESULT_CHARS}, async function anonymous(root) {\n`; // named as new Function names it
  const lineOffset = head.split('\n').length - 1;
  const opts = JSON.stringify({ ...extractor, lineOffset });
  return {
    expression: `${head}${script}\n}, null, ${opts})\n//# sourceURL=${EXTRACTOR_SOURCE}`,
    lineOffset,
    lines: extractor.lines,
  };
}

function thrownError(thrown, tabId) {
  const where = thrown.line ? ` at line ${thrown.line}${thrown.column ? `, column ${thrown.column}` : ''}` : '';
  const data = { message: thrown.error, stack: thrown.stack || '', line: thrown.line ?? null, column: thrown.column ?? null, tab_id: tabId };
  return new CommandError(ERR.SCRIPT_ERROR, `the script threw ${thrown.error}${where}: fix it and call again`, { data });
}

export async function run(msg, { signal }) {
  if (typeof msg.script !== 'string' || !msg.script.trim()) {
    throw new CommandError(ERR.INVALID_PARAMS, 'script must be the body of a function of root that returns the rows');
  }
  const css = msg.css_selector ?? null;
  if (css !== null && (typeof css !== 'string' || !css.trim())) throw new CommandError(ERR.INVALID_PARAMS, 'css_selector must be a non-empty CSS selector');
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.extract_script.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const extractor = { root: css, redact: await getRedaction(), patterns: await getPatterns(), values: await knownSecrets(msg, signal), lines: msg.script.split('\n').length };
  const { tabId, out } = await runScript(msg, {
    // No item cap: rows are the point, and the size limit still holds.
    args: [msg.script, MAX_RESULT_CHARS, null, null, extractor],
    sources: (runner) => [source(runner, extractor, msg.script)],
    timeoutMs,
    signal,
  });
  if (typeof out === 'string') return new JsonText(`{"tab_id":${tabId},${out.slice(1)}`);
  if (out.thrown) throw thrownError(out.thrown, tabId);
  if (out.bad_root) {
    const code = out.bad_root.invalid ? ERR.INVALID_SELECTOR : ERR.ELEMENT_NOT_FOUND;
    throw new CommandError(code, out.bad_root.message, { data: { tab_id: tabId, css_selector: css } });
  }
  if (typeof out.empty === 'string') {
    throw new CommandError(ERR.SCRIPT_ERROR, `the script returned ${out.empty}: end it with "return rows" (an array of objects, one per record)`, {
      data: { message: `returned ${out.empty}`, stack: '', line: null, column: null, tab_id: tabId },
    });
  }
  throw new CommandError(ERR.SCRIPT_ERROR, 'the page answered something unexpected', { data: { tab_id: tabId } });
}
