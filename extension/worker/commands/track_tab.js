// Track a tab (commands without a tab_id go to it until it closes or tracking stops), or stop tracking.
// The popup's "Track this tab" button writes the same setting.
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { setTrackedTab } from '../lib/state.js';
import { activeTab } from '../lib/target.js';

export const name = 'track_tab';
export const needsPilot = true;

const MAX_TAB_ID = 2 ** 31 - 1;

export async function run(msg) {
  if (msg.track === false) {
    await setTrackedTab(null);
    return { tracked_tab_id: null };
  }
  let tab;
  if (msg.tab_id === undefined || msg.tab_id === null) {
    tab = await activeTab();
    if (!tab) throw new CommandError(ERR.TAB_NOT_FOUND, 'no tab to track: open a page first, or pass tab_id');
  } else {
    if (!Number.isInteger(msg.tab_id)) throw new CommandError(ERR.INVALID_PARAMS, 'tab_id must be an integer');
    const lookup = msg.tab_id >= 0 && msg.tab_id <= MAX_TAB_ID ? chrome.tabs.get(msg.tab_id).catch(() => null) : null;
    tab = await lookup;
    if (!tab) throw new CommandError(ERR.TAB_NOT_FOUND, `no tab with id ${msg.tab_id}: list tabs to see the open ones`);
  }
  await setTrackedTab(tab);
  return { tracked_tab_id: tab.id, url: tab.url || tab.pendingUrl || '' };
}
