// Close a tab. Closing the browser's last tab would end the browser (and this extension's host with
// it), so a blank tab is opened first in that case.
import { onTab } from '../lib/target.js';

export const name = 'close_tab';
export const needsPilot = true;

export async function run(msg) {
  const closed = await onTab(msg.tab_id, async (id) => {
    const tab = await chrome.tabs.get(id);
    const all = await chrome.tabs.query({});
    if (all.length === 1) await chrome.tabs.create({ url: 'about:blank', windowId: tab.windowId });
    await chrome.tabs.remove(id);
    return tab;
  });
  return { closed_tab_id: closed.id, url: closed.url || '' };
}
