// Named browser-state snapshots kept in chrome.storage.local: one key per snapshot (its values) and one
// index of what may be shown (name, URL, time, size, counts). Only the index ever leaves this module
// towards the agent; the values are read back only to restore them into the browser.

const INDEX = 'stateSnapshots';
const PREFIX = 'stateSnapshot:';

export async function listSnapshots() {
  const got = await chrome.storage.local.get(INDEX);
  return got[INDEX] && typeof got[INDEX] === 'object' ? got[INDEX] : {};
}

export async function readSnapshot(name) {
  const got = await chrome.storage.local.get(PREFIX + name);
  return got[PREFIX + name] || null;
}

/** Store `snapshot` (its values) under `name` with `meta` in the index. */
export async function writeSnapshot(name, snapshot, meta) {
  const index = await listSnapshots();
  index[name] = meta;
  await chrome.storage.local.set({ [PREFIX + name]: snapshot, [INDEX]: index });
}

/** Remove `name`; false when there was none. */
export async function deleteSnapshot(name) {
  const index = await listSnapshots();
  if (!(name in index)) return false;
  delete index[name];
  await chrome.storage.local.remove(PREFIX + name);
  await chrome.storage.local.set({ [INDEX]: index });
  return true;
}
