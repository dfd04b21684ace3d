// Capturing what a tab shows. captureVisibleTab captures the active tab of a window, whatever tab was
// meant, so a background tab is brought to the front for the capture and the window's tab restored
// after (34 ms measured). Chrome allows about two captures a second
// (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND): a capture refused for that waits for the window to pass
// and tries again, a bounded number of times. A full page or one element goes through the debugger's
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
// With masks on the page, a tab brought to the front is captured only once it has painted a frame (the
// masks are in it): no older frame of the tab stands in for it. On a busy machine that can take long.
const MASKED_PAINT_WAIT_MS = 3000;
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

/** Whether tab `tabId` painted a frame within `ms`. */
async function painted(tabId, ms = PAINT_WAIT_MS) {
  const frame = chrome.scripting.executeScript({ target: { tabId }, func: framePainted });
  // A page that cannot run scripts (or never paints) is captured as it is after this bound, unless it is masked.
  return Promise.race([frame.then(() => true, () => false), pause(ms).then(() => false)]);
}

/** A masked tab that painted no frame in time: the worker takes the picture again, or refuses it. */
export class NotPainted extends Error {}

/**
 * `fn()` run with `tab` in front of its window (captures read what a window shows), the tab that was
 * in front before restored after. `masked`: the page holds masks, so `fn` runs only after a frame.
 */
async function inFront(tab, fn, masked = false) {
  let previous = null;
  try {
    // Asked now, not when the command began: another tab may have come to the front since.
    const { active } = await chrome.tabs.get(tab.id);
    if (!active) {
      [previous] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
      await chrome.tabs.update(tab.id, { active: true });
      // A tab just brought to the front has no frame yet to read back ("image readback failed").
      const fresh = await painted(tab.id, masked ? MASKED_PAINT_WAIT_MS : PAINT_WAIT_MS);
      if (masked && !fresh) throw new NotPainted(`tab ${tab.id} painted no frame with its masks in time`);
    }
    return await fn();
  } finally {
    if (previous && previous.id !== tab.id) await chrome.tabs.update(previous.id, { active: true }).catch(() => {});
  }
}

/** A data: URL of what `tab` shows in its viewport, captured as `format` (jpeg at `quality`, or png). */
export async function captureVisible(tab, { format, quality, signal, masked = false }) {
  const options = format === 'png' ? { format: 'png' } : { format: 'jpeg', quality };
  return inFront(tab, async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const shot = await captureWithQuota(tab.windowId, options, signal);
        // The capture reads whatever tab is in front of the window: if another came there meanwhile,
        // the picture is not this tab's (nor masked): it is taken again, or refused.
        const [front] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
        if (masked && (!front || front.id !== tab.id)) throw new NotPainted(`tab ${tab.id} left the front during the capture`);
        return shot;
      } catch (err) {
        if (!READBACK_RE.test(String(err && err.message)) || attempt >= READBACK_TRIES) throw err;
        await painted(tab.id);
      }
    }
  }, masked);
}

/**
 * A region of `tab`'s page in one picture of at most MAX_AREA pixels and `maxWidth` wide, via the
 * debugger (attached for this call only), which renders it whether or not it is in the viewport: no
 * scrolling, so no frame painted before a scroll can stand in for it. `region()` is asked once the
 * debugger is attached (attaching may resize the viewport) and answers {x, y, width, height} in CSS
 * pixels of the page, or null for the whole page. A region too tall to fit at a readable width is cut
 * (`truncated`). Answers {data (base64), mime, width, height, truncated, region, page_width, page_height}.
 */
export async function captureRegion(tab, region, { format, quality, maxWidth }) {
  const target = { tabId: tab.id };
  try {
    await chrome.debugger.attach(target, '1.3');
  } catch (err) {
    throw new CommandError(ERR.SCRIPT_ERROR, `this screenshot needs the debugger, which is unavailable here: ${err && err.message} (close DevTools on that tab)`, { data: { tab_id: tab.id } });
  }
  try {
    return await inFront(tab, async () => {
      const metrics = await chrome.debugger.sendCommand(target, 'Page.getLayoutMetrics', {});
      const css = metrics.cssContentSize || metrics.contentSize;
      // The picture comes in device pixels: the scale asked for is divided by their ratio.
      const ratio = metrics.cssContentSize && metrics.contentSize ? metrics.contentSize.width / metrics.cssContentSize.width : 1;
      const box = (await region()) || { x: 0, y: 0, width: css.width, height: css.height };
      const w = Math.max(1, Math.ceil(box.width));
      const h = Math.max(1, Math.ceil(box.height));
      let scale = Math.min(1, maxWidth / w, Math.sqrt(MAX_AREA / (w * h)));
      let clipH = h;
      let truncated = false;
      if (w * scale < Math.min(MIN_FULL_WIDTH, w)) {
        scale = Math.min(1, maxWidth / w, MIN_FULL_WIDTH / w);
        clipH = Math.floor(MAX_AREA / (w * scale * scale));
        truncated = clipH < h;
      }
      const shot = await chrome.debugger.sendCommand(target, 'Page.captureScreenshot', {
        format,
        ...(format === 'jpeg' ? { quality } : {}),
        captureBeyondViewport: true,
        clip: { x: box.x, y: box.y, width: w, height: clipH, scale: scale / (ratio || 1) },
      });
      return {
        data: shot.data,
        mime: `image/${format}`,
        width: Math.round(w * scale),
        height: Math.round(clipH * scale),
        truncated,
        region: box,
        page_width: Math.max(1, Math.ceil(css.width)),
        page_height: Math.max(1, Math.ceil(css.height)),
      };
    });
  } finally {
    chrome.debugger.detach(target).catch(() => {});
  }
}

/** The whole page of `tab` (captureRegion of all of it). */
export async function captureFullPage(tab, options) {
  const { region: _whole, ...shot } = await captureRegion(tab, async () => null, options);
  return shot;
}
