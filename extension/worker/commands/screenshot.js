// A picture of the tab for the agent: the viewport (default), one element (ref or selector; its
// bounds come from the page agent), or the full page. Sized in lib/image.js to ≤ ~1,600 image tokens.
// Every secret is under an opaque box while the picture is taken (lib/mask.js); the answer says how
// many regions were masked (`masked`) and how many unreadable frames were covered whole (`masked_frames`).
import { DEFAULTS, ERR } from '../protocol.js';
import { captureFullPage, captureVisible } from '../lib/capture.js';
import { CommandError } from '../lib/errors.js';
import { MAX_AREA, fitScale, imageSize, reshape, splitDataUrl } from '../lib/image.js';
import { maskTab } from '../lib/mask.js';
import { inPage } from '../lib/page.js';
import { onTab, tabFailure } from '../lib/target.js';

export const name = 'screenshot';
export const needsPilot = true;

const MAX_WIDTH = 1920;

function params(msg) {
  const format = msg.format ?? DEFAULTS.screenshot.format;
  if (format !== 'jpeg' && format !== 'png') throw new CommandError(ERR.INVALID_PARAMS, 'format must be jpeg or png');
  const quality = msg.quality ?? DEFAULTS.screenshot.quality;
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) throw new CommandError(ERR.INVALID_PARAMS, 'quality must be an integer from 1 to 100');
  const maxWidth = msg.max_width ?? DEFAULTS.screenshot.max_width;
  if (!Number.isInteger(maxWidth) || maxWidth < 16 || maxWidth > MAX_WIDTH) throw new CommandError(ERR.INVALID_PARAMS, `max_width must be an integer from 16 to ${MAX_WIDTH}`);
  if (msg.full_page && (msg.ref || msg.selector)) throw new CommandError(ERR.INVALID_PARAMS, 'full_page is for the whole page: leave out ref and selector');
  return { format, quality, maxWidth };
}

// Runs in the page: scroll the window so the box (page coordinates) is in view if it is not, and
// answer the viewport's size.
function bringIntoView(x, y, w, h) {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const left = x - scrollX;
  const top = y - scrollY;
  if (left < 0 || top < 0 || left + w > vw || top + h > vh) {
    scrollTo(Math.max(0, x - Math.max(0, (vw - w) / 2)), Math.max(0, y - Math.max(0, (vh - h) / 2)));
  }
  return { vw: innerWidth, vh: innerHeight };
}

async function elementBox(msg, signal) {
  const target = { ref: msg.ref || null, selector: msg.selector || null };
  const first = await inPage(msg, 'bounds', target, { signal });
  const [view] = await chrome.scripting.executeScript({
    target: { tabId: first.tab_id },
    func: bringIntoView,
    args: [first.x + first.scroll_x, first.y + first.scroll_y, first.width, first.height],
  });
  const box = await inPage({ ...msg, tab_id: first.tab_id }, 'bounds', target, { signal });
  if (box.width < 1 || box.height < 1) {
    throw new CommandError(ERR.NOT_INTERACTABLE, `${msg.ref || msg.selector} has no size on screen (hidden or empty): nothing to capture`, { data: { tab_id: box.tab_id } });
  }
  return { ...box, viewportWidth: view.result.vw };
}

export async function run(msg, { signal }) {
  const { format, quality, maxWidth } = params(msg);
  const box = msg.ref || msg.selector ? await elementBox(msg, signal) : null;
  const tab = await onTab(box ? box.tab_id : msg.tab_id, (id) => chrome.tabs.get(id));
  signal.throwIfAborted();
  // A secret that moved or appeared between masking and capture may be in the picture unmasked: the
  // picture is thrown away and taken again, and refused when the page never holds still.
  for (let attempt = 1; ; attempt += 1) {
    const masks = await maskTab(msg, tab.id, signal);
    try {
      const shot = await capture(msg, tab, box, { format, quality, maxWidth, signal });
      if (await masks.settled()) {
        shot.masked = masks.regions;
        if (masks.frames) shot.masked_frames = masks.frames;
        return shot;
      }
    } finally {
      await masks.remove();
    }
    if (attempt >= ATTEMPTS) {
      throw new CommandError(ERR.SECRET_UNMASKABLE, `the secrets on tab ${tab.id} kept moving or appearing while the screenshot was taken (${ATTEMPTS} tries), so they could not be masked: no screenshot was returned; wait for the page to settle, or read it as text (observe page)`, { data: { tab_id: tab.id } });
    }
  }
}

const ATTEMPTS = 4;

async function capture(msg, tab, box, { format, quality, maxWidth, signal }) {
  try {
    if (msg.full_page) return { ...(await captureFullPage(tab.id, { format, quality, maxWidth })), tab_id: tab.id, full_page: true };
    const shot = splitDataUrl(await captureVisible(tab, { format, quality, signal }));
    const size = box ? null : imageSize(shot);
    if (size && size.width <= maxWidth && size.width * size.height <= MAX_AREA) {
      return { ...shot, ...size, tab_id: tab.id }; // already small enough: sent as captured
    }
    const crop = box ? { x: box.x, y: box.y, width: box.width, height: box.height } : null;
    const out = await reshape(shot, crop, { maxWidth, format, quality, viewportWidth: box ? box.viewportWidth : 0 });
    const result = { ...out, tab_id: tab.id };
    if (box) result.element = { x: box.x, y: box.y, width: box.width, height: box.height };
    else if (size) result.scale = Number(fitScale(size.width, size.height, maxWidth).toFixed(3));
    return result;
  } catch (err) {
    if (err instanceof CommandError) throw err;
    throw await tabFailure(err, tab.id, ERR.SCRIPT_ERROR, (t) => `cannot capture tab ${t.id} (${t.url || 'no url'}; browser pages and the web store cannot be captured)`);
  }
}
