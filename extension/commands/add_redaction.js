// The agent adds CSS selectors whose elements are redacted in every page output. It can only add:
// the user's own list (edited in the popup) stays as it is, and a page skips a selector it cannot parse.
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { KEY, getRedaction } from '../lib/state.js';

export const name = 'add_redaction';
export const needsPilot = true;

const MAX_EXTRA = 100;
const MAX_LENGTH = 500;

export async function run(msg) {
  const wanted = msg.selectors;
  if (!Array.isArray(wanted) || !wanted.length || !wanted.every((s) => typeof s === 'string' && s.trim() && s.length <= MAX_LENGTH)) {
    throw new CommandError(ERR.INVALID_PARAMS, `selectors must be a non-empty list of CSS selectors of at most ${MAX_LENGTH} characters`);
  }
  const got = await chrome.storage.local.get(KEY.REDACT_EXTRA);
  const extra = Array.isArray(got[KEY.REDACT_EXTRA]) ? got[KEY.REDACT_EXTRA] : [];
  const merged = [...new Set([...extra, ...wanted.map((s) => s.trim())])];
  if (merged.length > MAX_EXTRA) {
    throw new CommandError(ERR.INVALID_PARAMS, `at most ${MAX_EXTRA} added selectors; there would be ${merged.length}`);
  }
  await chrome.storage.local.set({ [KEY.REDACT_EXTRA]: merged });
  return { added: merged.filter((s) => !extra.includes(s)), selectors: await getRedaction() };
}
