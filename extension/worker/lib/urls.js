// Which URLs the agent may open. Browser-internal pages hold settings, passwords and other
// extensions; file:// would hand the agent the local disk.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';

const WEB_STORE = [
  ['chromewebstore.google.com', '/'],
  ['chrome.google.com', '/webstore'],
  ['microsoftedge.microsoft.com', '/addons'],
];

const INTERNAL_SCHEMES = new Set([
  'chrome:', 'chrome-untrusted:', 'chrome-search:', 'devtools:', 'view-source:', 'edge:', 'brave:',
  'opera:', 'vivaldi:', 'about:',
]);

function blocked(url, why) {
  return new CommandError(ERR.NAVIGATION_BLOCKED, `cannot open ${url}: ${why}`);
}

/** The URL to load, or a CommandError saying why the agent may not open it. */
export function checkNavigable(raw) {
  if (typeof raw !== 'string' || !raw) throw new CommandError(ERR.INVALID_PARAMS, 'url must be a non-empty string');
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new CommandError(ERR.INVALID_PARAMS, `not an absolute URL: ${raw} (include the scheme, e.g. https://)`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    for (const [host, path] of WEB_STORE) {
      if (url.hostname === host && url.pathname.startsWith(path)) {
        throw blocked(raw, 'the browser does not let extensions act on the extension store');
      }
    }
    return url.href;
  }
  if (url.href === 'about:blank' || url.protocol === 'data:') return url.href;
  if (url.protocol === 'file:') {
    throw blocked(raw, 'file:// URLs would let the agent read files on this computer; serve the file over http instead');
  }
  if (url.protocol === 'chrome-extension:') {
    throw blocked(raw, "extension pages are off limits (TabPilot's own popup holds the AI Web Pilot switch)");
  }
  if (INTERNAL_SCHEMES.has(url.protocol)) {
    throw blocked(raw, 'browser-internal pages (settings, passwords, extensions) are off limits to the agent');
  }
  if (url.protocol === 'javascript:') throw blocked(raw, 'javascript: URLs are not navigation; use execute_js');
  throw blocked(raw, `${url.protocol}// URLs are not supported; use http:// or https://`);
}
