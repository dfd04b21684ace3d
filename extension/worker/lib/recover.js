// Getting a tab back after the agent's script outlived its timeout. A script that is only awaiting
// something leaves the page responsive: nothing to do. A synchronous loop holds the renderer's main
// thread, and then nothing an extension can send reaches it (measured, Chromium 156: a debugger session
// never finishes attaching, so Debugger.pause never arrives; reload and navigating elsewhere wait
// forever; Runtime.terminateExecution is refused to extensions). tabs.discard does end the renderer
// (~16 ms); the tab comes back under a new id, which is reloaded and, if it was tracked, tracked again.
import { bounded } from './deadline.js';
import { getTrackedTabId, setTrackedTab } from './state.js';

// How long a page may take to answer a trivial script before it counts as hung.
const PROBE_MS = 300;
// Bounded well inside the bridge's margin of 10 s over the command's own timeout.
const RELOAD_MS = 5_000;

async function responsive(tabId) {
  const probe = chrome.scripting.executeScript({ target: { tabId }, world: 'MAIN', func: () => 1, injectImmediately: true });
  try {
    await bounded(probe, { timeoutMs: PROBE_MS, onTimeout: () => new Error('hung') });
    return true;
  } catch {
    return false;
  }
}

function waitComplete(tabId) {
  let done;
  const promise = new Promise((resolve) => {
    done = (id, info) => {
      if (id === tabId && info.status === 'complete') resolve();
    };
    chrome.tabs.onUpdated.addListener(done);
  });
  return { promise, stop: () => chrome.tabs.onUpdated.removeListener(done) };
}

/** What was done about tab `tabId` after a timeout, as the error's data: {tab_id, recovered, …}. */
export async function recoverTab(tabId) {
  if (await responsive(tabId)) {
    return { tab_id: tabId, recovered: 'not_needed', detail: "the script was still awaiting something; the page is responsive and keeps its state" };
  }
  let fresh;
  try {
    fresh = await chrome.tabs.discard(tabId);
  } catch (err) {
    return { tab_id: tabId, recovered: 'failed', detail: `the page is stuck in the script and could not be discarded: ${err && err.message}` };
  }
  if (!fresh) return { tab_id: tabId, recovered: 'failed', detail: 'the page is stuck in the script and the browser refused to discard it' };
  const wasTracked = (await getTrackedTabId()) === tabId;
  const url = fresh.url || fresh.pendingUrl || '';
  const load = waitComplete(fresh.id);
  try {
    await chrome.tabs.reload(fresh.id);
    await bounded(load.promise, { timeoutMs: RELOAD_MS, onTimeout: () => new Error('reload timed out') });
  } catch {
    // Reported below as what it is: the tab exists and is loading or failed to; the agent can look.
  } finally {
    load.stop();
  }
  if (wasTracked) await setTrackedTab({ id: fresh.id, url });
  return {
    tab_id: tabId,
    new_tab_id: fresh.id,
    recovered: 'reloaded',
    url,
    detail: `the page was stuck in the script: the tab was discarded and reloaded as tab ${fresh.id} (page state lost)`,
  };
}
