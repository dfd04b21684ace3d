// The agent adds regular expressions for secret-shaped text to mask in every page output and
// screenshot. It can only add: the user's own list (edited in the popup) stays as it is. Each pattern
// is compiled here, as the page will compile it, and refused by name if it does not compile or if it
// matches empty text (which would mask between every two characters).
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
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
  return re.test('') ? 'matches empty text' : null;
}

export async function run(msg) {
  const wanted = msg.patterns;
  if (!Array.isArray(wanted) || !wanted.length) throw new CommandError(ERR.INVALID_PARAMS, 'patterns must be a non-empty list of regular expressions');
  const invalid = wanted.map((p) => ({ pattern: String(p).slice(0, 120), problem: problem(p) })).filter((x) => x.problem !== null);
  if (invalid.length) {
    const named = invalid.map((x) => `${JSON.stringify(x.pattern)} (${x.problem})`).join(', ');
    throw new CommandError(ERR.INVALID_PARAMS, `not added: ${named}`, { data: { invalid } });
  }
  const got = await chrome.storage.local.get(KEY.REDACT_PATTERNS_EXTRA);
  const extra = Array.isArray(got[KEY.REDACT_PATTERNS_EXTRA]) ? got[KEY.REDACT_PATTERNS_EXTRA] : [];
  const merged = [...new Set([...extra, ...wanted])];
  if (merged.length > MAX_EXTRA) throw new CommandError(ERR.INVALID_PARAMS, `at most ${MAX_EXTRA} added patterns; there would be ${merged.length}`);
  await chrome.storage.local.set({ [KEY.REDACT_PATTERNS_EXTRA]: merged });
  return { added: merged.filter((p) => !extra.includes(p)), patterns: merged };
}
