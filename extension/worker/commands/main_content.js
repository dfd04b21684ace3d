// The page's main content as cleaned HTML (page/main_content.js); the host converts it to markdown.
// The page serializes it into one JSON text, which goes on to the host unparsed.
import { DEFAULTS, ERR, MAX_RESULT_BYTES } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { inPage } from '../lib/page.js';

export const name = 'main_content';
export const needsPilot = true;

export function run(msg, { signal }) {
  const cssSelector = msg.css_selector ?? null;
  if (cssSelector !== null && (typeof cssSelector !== 'string' || !cssSelector.trim())) {
    throw new CommandError(ERR.INVALID_PARAMS, 'css_selector must be a non-empty CSS selector');
  }
  // The wire omits a default value: 8 MiB is MainContent.max_bytes's default in messages.py.
  const maxBytes = msg.max_bytes ?? DEFAULTS.main_content.max_bytes;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new CommandError(ERR.INVALID_PARAMS, 'max_bytes must be a positive integer');
  const args = { css_selector: cssSelector, max_bytes: Math.min(maxBytes, MAX_RESULT_BYTES) };
  return inPage(msg, 'main_content', args, { signal, fallbackTimeoutMs: DEFAULTS.main_content.timeout_ms });
}
