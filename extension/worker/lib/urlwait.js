// Waiting in the worker for a tab's URL to match: a page-side wait cannot survive the navigation
// that changes the URL.
import { ERR } from '../protocol.js';
import { bounded } from './deadline.js';
import { CommandError } from './errors.js';

/** `pattern` with `*` is a glob over the whole URL; without, a substring of it. */
export function urlMatcher(pattern) {
  if (!pattern.includes('*')) return (url) => url.includes(pattern);
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (url) => re.test(url);
}

/** Resolve {url} once tab `tabId`'s URL satisfies `matches`; TIMEOUT after `ms`, TAB_CLOSED if it closes. */
export async function waitForUrl(tabId, matches, pattern, ms, signal) {
  const nav = chrome.webNavigation;
  let listeners = [];
  const seen = new Promise((resolve, reject) => {
    const check = (url) => {
      if (url && matches(url)) resolve({ url, tab_id: tabId });
    };
    const frame = (d) => {
      if (d.tabId === tabId && d.frameId === 0) check(d.url);
    };
    listeners = [
      [nav.onCommitted, frame],
      [nav.onHistoryStateUpdated, frame],
      [nav.onReferenceFragmentUpdated, frame],
      [chrome.tabs.onUpdated, (id, change) => {
        if (id === tabId) check(change.url);
      }],
      [chrome.tabs.onRemoved, (id) => {
        if (id === tabId) reject(new CommandError(ERR.TAB_CLOSED, `tab ${tabId} was closed while waiting for its URL`, { data: { tab_id: tabId } }));
      }],
    ];
    for (const [event, fn] of listeners) event.addListener(fn);
  });
  seen.catch(() => {});
  let tab;
  try {
    // Listening first: a change between this read and the listeners would otherwise be missed.
    tab = await chrome.tabs.get(tabId);
    if (matches(tab.url || '')) return { url: tab.url, tab_id: tabId };
    return await bounded(seen, {
      timeoutMs: ms,
      signal,
      onTimeout: () => new CommandError(ERR.TIMEOUT, `waited ${ms} ms for the URL to match ${JSON.stringify(pattern)}; it is ${tab.url}`, {
        retryable: true, data: { tab_id: tabId },
      }),
    });
  } finally {
    for (const [event, fn] of listeners) event.removeListener(fn);
  }
}
