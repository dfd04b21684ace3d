// wait_for: until the tab's URL matches (watched here, in the worker, because a navigation replaces
// the page agent), then until a selector reaches a state or a text is shown (watched in the page).
// A navigation during the page wait restarts it in the new document. Bounded by timeout_ms.
import { DEFAULTS, ERR } from '../protocol.js';
import { timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';
import { watchNavigation } from '../lib/navwatch.js';
import { inPage } from '../lib/page.js';
import { onTab } from '../lib/target.js';
import { urlMatcher, waitForUrl } from '../lib/urlwait.js';

export const name = 'wait_for';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.wait_for.timeout_ms);
  if (timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'timeout_ms must be a positive integer');
  if (!msg.url && !msg.selector && !msg.text) throw new CommandError(ERR.INVALID_PARAMS, 'wait_for needs selector, text or url');
  const end = Date.now() + timeoutMs;
  let out = {};
  if (msg.url) {
    const matches = urlMatcher(msg.url);
    out = await onTab(msg.tab_id, (id) => waitForUrl(id, matches, msg.url, timeoutMs, signal), { signal });
  }
  if (!msg.selector && !msg.text) return out;
  const args = { selector: msg.selector, state: msg.state, text: msg.text };
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) throw new CommandError(ERR.TIMEOUT, `wait_for did not finish within ${timeoutMs} ms`, { retryable: true });
    let watch = null;
    try {
      // The page times out first (with what it saw); the worker's bound is the backstop.
      const page = await inPage({ ...msg, timeout_ms: left + 1_000 }, 'wait_for', { ...args, wait_ms: left }, {
        signal, onTab: (id) => { watch ??= watchNavigation(id); },
      });
      return { ...out, ...page };
    } catch (err) {
      const replaced = watch && watch.state.started && !watch.state.closed
        && (err.code === ERR.TAB_CLOSED || err.code === ERR.SCRIPT_ERROR);
      if (!replaced) throw err;
      // The document was replaced while the page waited: wait in the new one.
      await watch.settled(Math.max(end - Date.now(), 0), { signal });
      signal.throwIfAborted();
    } finally {
      watch?.stop();
    }
  }
}
