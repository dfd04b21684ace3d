export const name = 'tabs';
export const needsPilot = true;

export async function run() {
  const tabs = await chrome.tabs.query({});
  return {
    tabs: tabs.map((t) => ({
      id: t.id,
      url: t.url || t.pendingUrl || '',
      title: t.title || '',
      active: t.active,
      window_id: t.windowId,
    })),
  };
}
