// Infinite scroll, one step: scroll to the end and wait for more rows (or until_selector) to appear.
// The page waits with a MutationObserver for at most timeout_ms; running out of time is an answer
// (after == before), not an error: it is how the end of the list shows.
import { ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';

// Room for reaching the page (injection, ~2 ms) on top of the page's own wait.
const MARGIN_MS = 5_000;

export const name = 'scroll_load';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const waitMs = timeoutParam(msg.timeout_ms, 5_000);
  if (waitMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  const args = { row_selector: msg.row_selector, until_selector: msg.until_selector ?? null, wait_ms: waitMs };
  const out = await inPage({ ...msg, timeout_ms: waitMs + MARGIN_MS }, 'scroll_load', args, { signal });
  return { before: out.before, after: out.after, until_found: out.until_found };
}
