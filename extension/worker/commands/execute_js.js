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
import { getPatterns, getRedaction } from '../lib/state.js';

export const name = 'execute_js';
export const needsPilot = true;

/** The debugger's expressions: the runner called with the agent's code compiled in, as an expression first. */
function sources(runner, script, rules) {
  const tail = `, 10000, null, ${JSON.stringify(rules)}`;
  const wrap = (body) => ({ expression: `(${runner})(null, ${MAX_RESULT_CHARS}, async function () {\n${body}}${tail})` });
  return [wrap(`return (${script.replace(/[\s;]+$/, '')}\n)`), wrap(`${script}\n`)];
}

export async function run(msg, { signal }) {
  if (typeof msg.script !== 'string') throw new CommandError(ERR.INVALID_PARAMS, 'script must be a string');
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.execute_js.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const rules = { redact: await getRedaction(), patterns: await getPatterns(), values: await knownSecrets(msg, signal) };
  const { out } = await runScript(msg, {
    args: [msg.script, MAX_RESULT_CHARS, null, 10_000, null, rules],
    sources: (runner) => sources(runner, msg.script, rules),
    timeoutMs,
    signal,
  });
  if (out.thrown) return { success: false, error: out.thrown.error, stack: out.thrown.stack };
  if (typeof out !== 'string') throw new CommandError(ERR.SCRIPT_ERROR, 'the page answered something unexpected');
  return new JsonText(out);
}
