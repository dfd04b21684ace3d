// Capturing what a tab shows. captureVisibleTab captures the active tab of a window, whatever tab was
// meant, so a background tab is brought to the front for the capture and the window's tab restored
// after (34 ms measured). Chrome allows about two captures a second
// (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND): a capture refused for that waits for the window to pass
// and tries again, a bounded number of times. A full page goes through the debugger's
// Page.captureScreenshot, which renders beyond the viewport and scales in the renderer.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';
import { MAX_AREA } from './image.js';

const QUOTA_RE = /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/;
const QUOTA_WAIT_MS = 350;
const QUOTA_TRIES = 6;
const READBACK_RE = /image readback failed/i;
const READBACK_TRIES = 3;
const PAINT_WAIT_MS = 500;
// A full page is scaled to fit MAX_AREA, but not narrower than this; a taller page is cut (and said so).
const MIN_FULL_WIDTH = 640;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function captureWithQuota(windowId, options, signal) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await chrome.tabs.captureVisibleTab(windowId, options);
    } catch (err) {
      if (!QUOTA_RE.test(String(err && err.message)) || attempt >= QUOTA_TRIES) throw err;
      signal?.throwIfAborted();
      await pause(QUOTA_WAIT_MS); // the quota is a time window: waiting for it is the only way through
    }
  }
}

// Runs in the tab: resolves once the page has produced a frame since it became visible.
function framePainted() {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))));
}

async function painted(tabId) {
  const frame = chrome.scripting.executeScript({ target: { tabId }, func: framePainted });
  // A page that cannot run scripts (or never paints) is captured as it is after this bound.
  await Promise.race([frame.catch(() => null), pause(PAINT_WAIT_MS)]);
}

/** A data: URL of what `tab` shows in its viewport, captured as `format` (jpeg at `quality`, or png). */
export async function captureVisible(tab, { format, quality, signal }) {
  const options = format === 'png' ? { format: 'png' } : { format: 'jpeg', quality };
  let previous = null;
  if (!tab.active) {
    [previous] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
    await chrome.tabs.update(tab.id, { active: true });
    // A tab just brought to the front has no frame yet to read back ("image readback failed").
    await painted(tab.id);
  }
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await captureWithQuota(tab.windowId, options, signal);
      } catch (err) {
        if (!READBACK_RE.test(String(err && err.message)) || attempt >= READBACK_TRIES) throw err;
        await painted(tab.id);
      }
    }
  } finally {
    if (previous && previous.id !== tab.id) await chrome.tabs.update(previous.id, { active: true }).catch(() => {});
  }
}

/**
 * The whole page of tab `tabId` in one picture of at most MAX_AREA pixels and `maxWidth` wide, via the
 * debugger (attached for this call only). Answers {data (base64), mime, width, height, truncated}.
 */
export async function captureFullPage(tabId, { format, quality, maxWidth }) {
  const target = { tabId };
  try {
    await chrome.debugger.attach(target, '1.3');
  } catch (err) {
    throw new CommandError(ERR.SCRIPT_ERROR, `a full-page screenshot needs the debugger, which is unavailable here: ${err && err.message} (close DevTools on that tab)`, { data: { tab_id: tabId } });
  }
  try {
    const metrics = await chrome.debugger.sendCommand(target, 'Page.getLayoutMetrics', {});
    const size = metrics.cssContentSize || metrics.contentSize;
    const pageW = Math.max(1, Math.ceil(size.width));
    const pageH = Math.max(1, Math.ceil(size.height));
    let scale = Math.min(1, maxWidth / pageW, Math.sqrt(MAX_AREA / (pageW * pageH)));
    let clipH = pageH;
    let truncated = false;
    if (pageW * scale < Math.min(MIN_FULL_WIDTH, pageW)) {
      scale = Math.min(1, maxWidth / pageW, MIN_FULL_WIDTH / pageW);
      clipH = Math.floor(MAX_AREA / (pageW * scale * scale));
      truncated = clipH < pageH;
    }
    const shot = await chrome.debugger.sendCommand(target, 'Page.captureScreenshot', {
      format,
      ...(format === 'jpeg' ? { quality } : {}),
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: pageW, height: clipH, scale },
    });
    return {
      data: shot.data,
      mime: `image/${format}`,
      width: Math.round(pageW * scale),
      height: Math.round(clipH * scale),
      page_width: pageW,
      page_height: pageH,
      truncated,
    };
  } finally {
    chrome.debugger.detach(target).catch(() => {});
  }
}
