// Bring a tab to the front of its window and focus the window. When a tab is tracked, tracking moves
// to this one: the agent asked to work there, and commands without a tab_id go to the tracked tab.
import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';
import { getTrackedTabId, setTrackedTab } from '../lib/state.js';
import { onTab } from '../lib/target.js';

export const name = 'switch_tab';
export const needsPilot = true;

export async function run(msg) {
  if (msg.tab_id === undefined || msg.tab_id === null) throw new CommandError(ERR.INVALID_PARAMS, 'switch_tab needs tab_id');
  const tab = await onTab(msg.tab_id, (id) => chrome.tabs.update(id, { active: true }));
  await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {}); // headless has no focus to give
  const tracked = await getTrackedTabId();
  if (tracked !== null && tracked !== tab.id) await setTrackedTab(tab);
  return { tab_id: tab.id, url: tab.url || tab.pendingUrl || '', title: tab.title || '', active: true };
}
