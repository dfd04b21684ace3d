// Tabs whose page agent may be reading pages ahead for a walk along next links (page/fetch_walk.js),
// told to stop when the host goes: no one takes those pages any more (a resumed run goes on from its
// journal's last page and would read them again). A command the host was waiting for stops its walk by
// itself (commands/fetch_extract.js); this covers a host that dies between two such commands.
import { inPage } from './page.js';

const walking = new Set();

/** Tab `tabId`'s page agent reads ahead for a walk. */
export function walkIn(tabId) {
  if (Number.isInteger(tabId)) walking.add(tabId);
}

/** The host is gone: every walk stops reading ahead. */
export function stopWalks() {
  for (const tabId of walking) inPage({ tab_id: tabId }, 'fetch_walk_stop', {}).catch(() => {});
  walking.clear();
}
