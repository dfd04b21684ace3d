// The person's consent to the agent's scripts, per site. A script the agent runs in a page can read
// anything the page can (a password field's value, a token in a data-sensitive cell) and carry it out
// transformed past any scrubbing (upper-cased, sliced, base64). So on a page that holds secrets the
// agent did not type itself, execute_js and extract_script are refused (secrets_on_page) unless the
// person ticked "Allow scripts" for that site in the popup. Off for every site by default; only the
// popup writes the list (background.js checks the sender), and storage is closed to content scripts.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';
import { inPage } from './page.js';
import { normalizePattern, siteOf } from './sites.js';
import { KEY } from './state.js';

const SCRIPT_SITES_KEY = KEY.SCRIPT_SITES;

/** The sites (host, with a non-default port) the person allows scripts on. */
export async function scriptSites() {
  const got = await chrome.storage.local.get(SCRIPT_SITES_KEY);
  const list = got[SCRIPT_SITES_KEY];
  return Array.isArray(list) ? list.filter((s) => typeof s === 'string') : [];
}

/** The popup's change: allow or withdraw scripts on `site`. Answers the list, or {error}. */
export async function setScriptSite(site, allowed) {
  const clean = typeof site === 'string' && !site.includes('*') ? normalizePattern(site) : null;
  if (!clean || typeof allowed !== 'boolean') return { error: `not a site: ${JSON.stringify(site)}` };
  const list = (await scriptSites()).filter((s) => s !== clean);
  if (allowed) list.push(clean);
  await chrome.storage.local.set({ [SCRIPT_SITES_KEY]: list });
  return { sites: list };
}

/**
 * Throw secrets_on_page when tab `tabId` shows a page holding secrets the agent did not type and the
 * person has not allowed scripts on its site. The page agent counts them (page/held.js).
 */
export async function checkScriptConsent(tabId, signal) {
  const tab = await chrome.tabs.get(tabId);
  const site = siteOf(tab.url || '');
  if (site && (await scriptSites()).includes(site)) return;
  let held = 0;
  try {
    ({ held } = await inPage({ tab_id: tabId }, 'secrets_held', {}, { signal }));
  } catch (err) {
    // A page the agent cannot reach (about:blank, a browser page) holds nothing a script could read.
    if (err instanceof CommandError && (err.code === ERR.NAVIGATION_FAILED || err.code === ERR.SCRIPT_ERROR)) return;
    throw err;
  }
  if (!held) return;
  const where = site || 'this page';
  throw new CommandError(
    ERR.SECRETS_ON_PAGE,
    `${where} holds secrets you did not type (${held} field${held === 1 ? '' : 's'}: passwords or fields marked sensitive), and a script could read them and carry them out. Scripts on such a page need the person's consent: ask them to open the TabPilot popup on this tab and tick "Allow the agent's scripts on ${where}". Until then, read the page with snapshot or extract, which redact them`,
    { data: { site, tab_id: tabId, held } },
  );
}
