// The open tabs. A tab on a site outside the ones the person allows shows only its site: its path
// and title are that site's data (a mail subject, a document name), which the pilot may not read.
import { allows, siteOf } from '../lib/sites.js';
import { getScope } from '../lib/state.js';

export const name = 'tabs';
export const needsPilot = true;

export async function run() {
  const [tabs, scope] = await Promise.all([chrome.tabs.query({}), getScope()]);
  return {
    tabs: tabs.map((t) => {
      const url = t.url || t.pendingUrl || '';
      const shown = allows(scope, url);
      const site = siteOf(url);
      return {
        id: t.id,
        url: shown ? url : site ? `${new URL(url).protocol}//${site}/` : '',
        title: shown ? t.title || '' : '',
        active: t.active,
        window_id: t.windowId,
      };
    }),
  };
}
