// The page's repeated records with draft selectors and schemas, and a skeleton of the best region
// (page/suggest.js); the host converts the sample rows as extract does.
import { DEFAULTS, ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';

export const name = 'suggest';
export const needsPilot = true;

const optionalText = (value, what) => {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || !value.trim()) throw new CommandError(ERR.INVALID_PARAMS, `${what} must be a non-empty string`);
  return value;
};

const intIn = (value, fallback, low, high, what) => {
  if (value === null || value === undefined) return fallback;
  if (!Number.isInteger(value) || value < low || value > high) throw new CommandError(ERR.INVALID_PARAMS, `${what} must be an integer from ${low} to ${high}`);
  return value;
};

export function run(msg, { signal }) {
  const args = {
    query: optionalText(msg.query, 'query'),
    css_selector: optionalText(msg.css_selector, 'css_selector'),
    max_candidates: intIn(msg.max_candidates, DEFAULTS.suggest.max_candidates, 1, 20, 'max_candidates'),
    skeleton_bytes: intIn(msg.skeleton_bytes, DEFAULTS.suggest.skeleton_bytes, 500, 64000, 'skeleton_bytes'),
  };
  return inPage(msg, 'suggest', args, { signal, fallbackTimeoutMs: DEFAULTS.suggest.timeout_ms });
}
