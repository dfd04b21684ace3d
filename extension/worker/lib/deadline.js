// Bounding a wait: every promise a command awaits ends by its timeout or by cancellation.

import { MAX_TIMER_MS } from '../protocol.js';

/** `promise`, or a rejection with `onTimeout()` after `timeoutMs`, or with `signal.reason` on abort. */
export function bounded(promise, { timeoutMs, onTimeout, signal }) {
  return new Promise((resolve, reject) => {
    const finish = (fn, v) => {
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onAbort);
      fn(v);
    };
    const onAbort = () => finish(reject, signal.reason);
    const timer = setTimeout(() => finish(reject, onTimeout()), timeoutMs);
    if (signal) {
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
    }
    promise.then((v) => finish(resolve, v), (e) => finish(reject, e));
  });
}

/** A timeout_ms parameter: a positive integer up to what a timer holds (null otherwise: the host
 * refuses those before they come here), `fallback` when absent. How long is the user's to say. */
export function timeoutParam(value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value <= 0 || value > MAX_TIMER_MS) return null;
  return value;
}
