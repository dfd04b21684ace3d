// Tabs whose page agent may be reading pages ahead for a walk along next links (page/fetch_walk.js).
// When the host goes, their walks start no more reads ahead but keep those read for their time: the run
// resumed from its journal's last page, from the same tab's page, takes them without a second request.
// When the pilot goes off or the sites allowed change, every walk stops and forgets what it read ahead.
// A command the host was waiting for and its own run cancelled stops its walk by itself
// (commands/fetch_extract.js).
const walking = new Set();

// Runs in the page (isolated world): only an agent there has a walk to stop; none is injected for it.
function stopInPage(keep) {
  const agent = globalThis.__tabpilotAgent;
  if (agent && agent.commands.fetch_walk_stop) agent.run('fetch_walk_stop', { keep });
}

function tell(tabId, keep) {
  chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: stopInPage, args: [keep] }).catch(() => {});
}

/** Tab `tabId`'s page agent reads ahead for a walk. */
export function walkIn(tabId) {
  if (Number.isInteger(tabId)) walking.add(tabId);
}

/** The host is gone: every walk stops reading ahead, and keeps what it read for a resumed run. */
export function pauseWalks() {
  for (const tabId of walking) tell(tabId, true);
}

/** The pilot went off or the sites changed: every walk stops and drops what it read ahead. */
export function stopWalks() {
  for (const tabId of walking) tell(tabId, false);
  walking.clear();
}
