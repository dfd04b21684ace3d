// The agent adds regular expressions for secret-shaped text to mask in every page output and
// screenshot; it can list the ones it added and remove them, never the user's own (edited in the
// popup). Each pattern is checked as the host checks output_schema patterns (RE2: linear time, so no
// backreferences or lookaround; the host refuses those before they get here) and, since the page runs
// it on JavaScript's backtracking engine, refused when a repeat holds another unbounded repeat or an
// alternation (`(a+)+$`, `(a|a)*`): those take exponential time on a near-miss and would hang every
// page output. Also refused: what does not compile or matches empty text.
import { DEFAULTS, ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { backtracks } from '../lib/regex_guard.js';
import { KEY } from '../lib/state.js';

export const name = 'add_secret_pattern';
export const needsPilot = true;

const MAX_EXTRA = 100;
const MAX_LENGTH = 500;
/** Why `entry` cannot be a pattern, or null when it can. */
function problem(entry) {
  if (typeof entry !== 'string' || !entry.trim()) return 'empty';
  if (entry.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  const source = entry.startsWith('luhn:') ? entry.slice(5) : entry;
  let re;
  try {
    re = new RegExp(source, 'g');
  } catch (err) {
    return `not a regular expression: ${err.message}`;
  }
  if (backtracks(source)) return 'a repeat holds another repeat or an alternation, which can take exponential time: write it without the nesting (e.g. a+ for (a+)+)';
  return re.test('') ? 'matches empty text' : null;
}

async function added() {
  const got = await chrome.storage.local.get(KEY.REDACT_PATTERNS_EXTRA);
  return Array.isArray(got[KEY.REDACT_PATTERNS_EXTRA]) ? got[KEY.REDACT_PATTERNS_EXTRA] : [];
}

export async function run(msg) {
  const op = msg.op ?? DEFAULTS.add_secret_pattern.op;
  if (op === 'list') return { added: [], patterns: await added(), removed: [] };
  const wanted = msg.patterns;
  if (!Array.isArray(wanted) || !wanted.length) throw new CommandError(ERR.INVALID_PARAMS, 'patterns must be a non-empty list of regular expressions');
  const extra = await added();
  if (op === 'remove') {
    const unknown = wanted.filter((p) => !extra.includes(p));
    if (unknown.length) {
      throw new CommandError(ERR.INVALID_PARAMS, `not among the patterns you added: ${unknown.map((p) => JSON.stringify(String(p).slice(0, 120))).join(', ')} (list_secret_patterns shows them; the user's own are edited in the popup)`);
    }
    const left = extra.filter((p) => !wanted.includes(p));
    await chrome.storage.local.set({ [KEY.REDACT_PATTERNS_EXTRA]: left });
    return { added: [], patterns: left, removed: extra.filter((p) => wanted.includes(p)) };
  }
  if (op !== 'add') throw new CommandError(ERR.INVALID_PARAMS, `op must be add, list or remove, got ${JSON.stringify(op)}`);
  const invalid = wanted.map((p) => ({ pattern: String(p).slice(0, 120), problem: problem(p) })).filter((x) => x.problem !== null);
  if (invalid.length) {
    const named = invalid.map((x) => `${JSON.stringify(x.pattern)} (${x.problem})`).join(', ');
    throw new CommandError(ERR.INVALID_PARAMS, `not added: ${named}`, { data: { invalid } });
  }
  const merged = [...new Set([...extra, ...wanted])];
  if (merged.length > MAX_EXTRA) throw new CommandError(ERR.INVALID_PARAMS, `at most ${MAX_EXTRA} added patterns; there would be ${merged.length}`);
  await chrome.storage.local.set({ [KEY.REDACT_PATTERNS_EXTRA]: merged });
  return { added: merged.filter((p) => !extra.includes(p)), patterns: merged, removed: [] };
}
