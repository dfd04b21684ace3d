// The page agent ahead of the first command. A tab the pilot opened or moved (navigate, new_tab, back,
// forward, reload, a click or key that navigated, a detail page's background tab, a restored state)
// gets the agent in each new main-frame document as soon as it commits, while the page still loads:
// the command after a navigation finds it there (no injection to wait for), and the agent sees the
// page's own changes from the start (a password field the page later flips to type=text to show it is
// one the agent saw as a password: page/redact.js).
// Only in those tabs, never in the person's others; only on pages in the sites the person allows; only
// while the pilot is on (switching it off forgets every tab). The tabs are kept in this worker alone:
// a restarted worker injects at the first command, as it always could.
import { listen } from './navwatch.js';
import { forgetArrival, injectAgent } from './page.js';
import { allows } from './sites.js';
import { getPilot, getScope } from './state.js';

const tabs = new Map(); // tabId -> {driven, acting, stop}

const WEB_PAGE = /^(https?|file):/i;

function entry(tabId) {
  let e = tabs.get(tabId);
  if (!e) {
    e = { driven: false, acting: 0, stop: null };
    e.stop = listen(tabId, (event, d) => heard(tabId, e, event, d));
    tabs.set(tabId, e);
  }
  return e;
}

function drop(tabId) {
  const e = tabs.get(tabId);
  if (!e) return;
  e.stop();
  tabs.delete(tabId);
}

function heard(tabId, e, event, d) {
  if (event === 'onRemoved') {
    drop(tabId);
    forgetArrival(tabId);
    return;
  }
  // A navigation that starts while a command acts on the tab is the pilot's doing.
  if ((event === 'onBeforeNavigate' || event === 'onCommitted') && e.acting > 0) e.driven = true;
  if (event === 'onCommitted' && e.driven) committed(d).catch((err) => console.warn('TabPilot: page agent ahead:', err));
}

async function committed(d) {
  if (!WEB_PAGE.test(d.url || '')) return;
  if (!(await getPilot()) || !allows(await getScope(), d.url)) return;
  injectAgent(d.tabId, d.documentId);
}

/** The pilot opens or moves tab `tabId` now: its pages get the agent ahead from here on. */
export function drive(tabId) {
  if (Number.isInteger(tabId)) entry(tabId).driven = true;
}

/** A command acts on tab `tabId` until the returned release(): a navigation it starts meanwhile drives the tab. */
export function actingOn(tabId) {
  if (!Number.isInteger(tabId)) return () => {};
  const e = entry(tabId);
  e.acting += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    e.acting -= 1;
    if (!e.driven && e.acting === 0 && tabs.get(tabId) === e) drop(tabId);
  };
}

/** The pilot went off: no tab is driven any more. */
export function forgetAll() {
  for (const tabId of [...tabs.keys()]) drop(tabId);
}
