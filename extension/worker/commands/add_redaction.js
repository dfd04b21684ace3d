// The agent adds CSS selectors whose elements are redacted in every page output. It can only add:
// the user's own list (edited in the popup) stays as it is. Each selector is checked on its own and
// the call is refused, naming the bad ones, if any fails: the list is joined into one selector in
// the page, where a bad entry (`b/*` opens a comment) would disable every entry after it.
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { syncGuard } from '../lib/guard.js';
import { selectorProblem } from '../lib/selectors.js';
import { KEY, getRedaction } from '../lib/state.js';

export const name = 'add_redaction';
export const needsPilot = true;

const MAX_EXTRA = 100;
const ECHO_CHARS = 120;

const echo = (s) => (typeof s === 'string' && s.length > ECHO_CHARS ? `${s.slice(0, ECHO_CHARS)}…` : s);

export async function run(msg) {
  const wanted = msg.selectors;
  if (!Array.isArray(wanted) || !wanted.length) {
    throw new CommandError(ERR.INVALID_PARAMS, 'selectors must be a non-empty list of CSS selectors');
  }
  const invalid = wanted
    .map((s) => ({ selector: echo(s), problem: selectorProblem(s) }))
    .filter((x) => x.problem !== null);
  if (invalid.length) {
    const named = invalid.map((x) => `${JSON.stringify(x.selector)} (${x.problem})`).join(', ');
    throw new CommandError(ERR.INVALID_SELECTOR, `not added, each must be a valid CSS selector on its own: ${named}`, { data: { invalid } });
  }
  const got = await chrome.storage.local.get(KEY.REDACT_EXTRA);
  // An entry stored before this check existed may be one that breaks the others: it goes.
  const extra = (Array.isArray(got[KEY.REDACT_EXTRA]) ? got[KEY.REDACT_EXTRA] : []).filter((s) => selectorProblem(s) === null);
  const merged = [...new Set([...extra, ...wanted.map((s) => s.trim())])];
  if (merged.length > MAX_EXTRA) {
    throw new CommandError(ERR.INVALID_PARAMS, `at most ${MAX_EXTRA} added selectors; there would be ${merged.length}`);
  }
  await chrome.storage.local.set({ [KEY.REDACT_EXTRA]: merged });
  // The guard in documents loaded from now on learns the list from their start (needsPilot: it is on).
  await syncGuard(true);
  return { added: merged.filter((s) => !extra.includes(s)), selectors: await getRedaction() };
}
