// The page as lean text with @e refs (page/snapshot.js), cut to max_chars with a cursor for the rest.
import { inPage } from '../lib/page.js';

export const name = 'snapshot';
export const needsPilot = true;

export function run(msg, { signal }) {
  const { scope = null, max_chars: maxChars, cursor, mode } = msg;
  return inPage(msg, 'snapshot', { scope, max_chars: maxChars, cursor, mode }, { signal });
}
