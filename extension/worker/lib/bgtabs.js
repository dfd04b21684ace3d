// The background tabs extract_tab keeps open for a run's `follow` (a pool, named by the host), so that
// the next detail page loads in an open tab instead of a new one. Kept in chrome.storage.session, not in
// a module variable: a worker restarted mid-run still knows which tabs are the pool's to reuse and to
// close, and never mistakes a tab of the user's for one of them.
const KEY = 'extract_tab_pools';

// Concurrent commands update the one entry: each read-modify-write waits for the one before.
let queue = Promise.resolve();

function update(fn) {
  const next = queue.then(async () => {
    const pools = (await chrome.storage.session.get(KEY))[KEY] || {};
    const out = fn(pools);
    await chrome.storage.session.set({ [KEY]: pools });
    return out;
  });
  queue = next.catch(() => {});
  return next;
}

/** Record tab `tabId` as opened for `pool`. */
export function remember(pool, tabId) {
  return update((pools) => {
    pools[pool] = [...new Set([...(pools[pool] || []), tabId])];
  });
}

/** Forget tab `tabId` (closed) in `pool`. */
export function forget(pool, tabId) {
  return update((pools) => {
    const left = (pools[pool] || []).filter((id) => id !== tabId);
    if (left.length) pools[pool] = left;
    else delete pools[pool];
  });
}

/** Whether tab `tabId` is one that extract_tab opened for `pool`. */
export async function owns(pool, tabId) {
  await queue;
  const pools = (await chrome.storage.session.get(KEY))[KEY] || {};
  return (pools[pool] || []).includes(tabId);
}

/** Close every tab of `pool` (one already gone is skipped); how many were closed. */
export async function release(pool) {
  const ids = await update((pools) => {
    const all = pools[pool] || [];
    delete pools[pool];
    return all;
  });
  let closed = 0;
  for (const id of ids) {
    try {
      await chrome.tabs.remove(id);
      closed += 1;
    } catch {
      // Already closed (by the person, or a failed read): nothing to do.
    }
  }
  return closed;
}

/** Close the tabs of every pool (the pilot was switched off: the runs that opened them are stopped). */
export async function releaseAll() {
  const pools = (await chrome.storage.session.get(KEY))[KEY] || {};
  let closed = 0;
  for (const pool of Object.keys(pools)) closed += await release(pool);
  return closed;
}
