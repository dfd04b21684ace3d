// Structured extraction: the page applies the compiled fields to every row and serializes the rows
// itself; the JSON text goes on to the host unparsed (big results in ~256 KB chunks).
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';

export const name = 'extract';
export const needsPilot = true;

export async function run(msg, { signal }) {
  if (typeof msg.selector !== 'string' || !msg.selector.trim()) throw new CommandError(ERR.INVALID_PARAMS, 'selector must be a CSS selector for the rows');
  if (!Array.isArray(msg.fields) || msg.fields.length === 0) throw new CommandError(ERR.INVALID_PARAMS, 'fields must be a non-empty list');
  const limit = msg.limit ?? null;
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new CommandError(ERR.INVALID_PARAMS, 'limit must be a non-negative integer');
  // A JSON text with more UTF-16 units than MAX_RESULT_BYTES has at least as many UTF-8 bytes.
  const virtual = msg.virtual ?? null;
  if (virtual !== null && typeof virtual !== 'boolean') throw new CommandError(ERR.INVALID_PARAMS, 'virtual must be true, false or null');
  const args = { selector: msg.selector, fields: msg.fields, limit, max_chars: MAX_RESULT_BYTES, virtual, resume: msg.resume === true, last: msg.last === true, next_selector: msg.next_selector ?? null, key_fields: Array.isArray(msg.key_fields) ? msg.key_fields : null };
  return inPage(msg, 'extract', args, { signal, fallbackTimeoutMs: DEFAULTS.extract.timeout_ms });
}
