// A picture of the tab for the agent: the viewport (default), one element (ref or selector; its
// bounds come from the page agent; rendered in place, below the fold or taller than the viewport, and
// cut like a full page when too tall), or the full page. Sized in lib/image.js to ≤ ~1,600 image tokens.
// Every secret is under an opaque box while the picture is taken (lib/mask.js); the answer says how
// many regions were masked (`masked`) and how many unreadable frames were covered whole (`masked_frames`).
import { DEFAULTS, ERR } from '../protocol.js';
import { NotPainted, captureFullPage, captureRegion, captureVisible } from '../lib/capture.js';
import { CommandError } from '../lib/errors.js';
import { MAX_AREA, blackAt, fitScale, imageSize, reshape, splitDataUrl } from '../lib/image.js';
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

/** The element's box, checked before anything is drawn: it names the tab and fails early. */
async function elementBox(msg, signal) {
  const target = { ref: msg.ref || null, selector: msg.selector || null };
  const box = await inPage(msg, 'bounds', target, { signal });
  if (box.width < 1 || box.height < 1) {
    throw new CommandError(ERR.NOT_INTERACTABLE, `${msg.ref || msg.selector} has no size on screen (hidden or empty): nothing to capture`, { data: { tab_id: box.tab_id } });
  }
  return box;
}

/** The element's box in CSS pixels of the page, measured again when the capture is about to happen. */
function elementRegion(msg, box, signal) {
  return async () => {
    const now = await elementBox({ ...msg, tab_id: box.tab_id }, signal);
    return { x: now.x + now.scroll_x, y: now.y + now.scroll_y, width: now.width, height: now.height };
  };
}

export async function run(msg, { signal }) {
  const { format, quality, maxWidth } = params(msg);
  const box = msg.ref || msg.selector ? await elementBox(msg, signal) : null;
  const tab = await onTab(box ? box.tab_id : msg.tab_id, (id) => chrome.tabs.get(id));
  signal.throwIfAborted();
  // A secret that moved or appeared between masking and capture may be in the picture unmasked: the
  // picture is thrown away and taken again, and refused when the page never holds still.
  // So is a picture whose masks were not yet painted (a busy machine): it is not even taken.
  for (let attempt = 1; ; attempt += 1) {
    const masks = await maskTab(msg, tab.id, signal);
    try {
      const shot = masks.painted ? await capture(msg, tab, box, { format, quality, maxWidth, signal, masks }) : null;
      if (shot && (await masks.settled())) {
        shot.masked = masks.regions;
        if (masks.frames) shot.masked_frames = masks.frames;
        return shot;
      }
    } finally {
      await masks.remove();
    }
    if (attempt >= ATTEMPTS) {
      throw new CommandError(ERR.SECRET_UNMASKABLE, `the secrets on tab ${tab.id} kept moving or appearing, or their masks were not painted, while the screenshot was taken (${ATTEMPTS} tries), so they could not be masked: no screenshot was returned; wait for the page to settle, or read it as text (observe page)`, { data: { tab_id: tab.id } });
    }
  }
}

const ATTEMPTS = 4;

/** The picture, or null when the masked tab painted no frame in time or the picture lacks its masks
 * (the caller tries again). */
async function capture(msg, tab, box, { format, quality, maxWidth, signal, masks }) {
  const masked = masks.regions + masks.frames > 0;
  try {
    if (msg.full_page) return { ...(await captureFullPage(tab, { format, quality, maxWidth })), tab_id: tab.id, full_page: true };
    if (box) {
      // Rendered where it is, below the fold or taller than the viewport alike.
      const { region, page_width: _w, page_height: _h, truncated, ...shot } = await captureRegion(tab, elementRegion(msg, box, signal), { format, quality, maxWidth });
      return { ...shot, tab_id: tab.id, element: region, ...(truncated ? { truncated } : {}) };
    }
    const shot = splitDataUrl(await captureVisible(tab, { format, quality, signal, masked }));
    // The picture must show the boxes where they were drawn, or it is not the masked page's.
    if (masked && !(await blackAt(shot, masks.points, masks.viewportWidth))) return null;
    const size = imageSize(shot);
    if (size.width <= maxWidth && size.width * size.height <= MAX_AREA) {
      return { ...shot, ...size, tab_id: tab.id }; // already small enough: sent as captured
    }
    const out = await reshape(shot, null, { maxWidth, format, quality, viewportWidth: 0 });
    return { ...out, tab_id: tab.id, scale: Number(fitScale(size.width, size.height, maxWidth).toFixed(3)) };
  } catch (err) {
    if (err instanceof NotPainted) return null;
    if (err instanceof CommandError) throw err;
    throw await tabFailure(err, tab.id, ERR.SCRIPT_ERROR, (t) => `cannot capture tab ${t.id} (${t.url || 'no url'}; browser pages and the web store cannot be captured)`);
  }
}
