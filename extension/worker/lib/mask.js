// Opaque boxes over every secret for the time of one screenshot (page/mask.js draws them). The top
// document masks itself and its same-origin frames; each cross-origin frame is masked by its own page
// agent, found among the tab's frames (webNavigation) by its address; a frame that cannot be reached
// (a data: URL, a page the extension may not script, one that navigated away from its src) is covered
// whole by the document that holds it. If even that fails, the capture is refused: pixels of a
// secret never leave.
import { ERR } from '../protocol.js';
import { CommandError } from './errors.js';
import { inPage } from './page.js';

const bare = (url) => String(url || '').split('#')[0];

/**
 * Mask the secrets of tab `tabId`. Answers {regions, frames, painted, points, viewportWidth, remove,
 * settled}: how many secret regions got a box, how many unreadable frames were covered whole, whether
 * every box is in a painted frame yet (a visible tab's), the middles of the top document's boxes in its
 * viewport (CSS pixels of a viewport that wide), the function that takes the boxes away, and the one
 * that says whether any secret moved since they were drawn.
 */
export async function maskTab(msg, tabId, signal) {
  const masked = [];
  const out = { regions: 0, frames: 0, painted: true, points: [], viewportWidth: 0 };
  const at = { ...msg, tab_id: tabId };
  const all = (await chrome.webNavigation.getAllFrames({ tabId })) || [];
  const claimed = new Set([0]);

  async function maskFrame(frameId, address = null) {
    const got = await inPage(at, 'mask', {}, { signal, frameId });
    masked.push(frameId);
    // The document masked must be at the address its parent names: one that left it meanwhile (before
    // webNavigation told) is another page, with secrets its masks know nothing of: covered whole.
    if (address !== null && bare(got.url) !== bare(address)) throw new CommandError(ERR.SECRET_UNMASKABLE, 'the frame moved');
    out.regions += got.regions;
    if (got.painted === false) out.painted = false;
    if (frameId === 0) {
      out.points = Array.isArray(got.points) ? got.points : [];
      out.viewportWidth = Number(got.viewport_width) || 0;
    }
    const uncovered = [];
    for (const [k, url] of (got.frames || []).entries()) {
      const frame = all.find((f) => !claimed.has(f.frameId) && bare(f.url) === bare(url));
      if (!frame) {
        uncovered.push(k);
        continue;
      }
      claimed.add(frame.frameId);
      try {
        await maskFrame(frame.frameId, url);
      } catch (err) {
        if (signal?.aborted) throw err;
        uncovered.push(k);
      }
    }
    if (!uncovered.length) return;
    const cover = await inPage(at, 'cover_frames', { frames: uncovered }, { signal, frameId });
    out.frames += cover.covered;
    // The covers too must be painted, and shown in the picture where they were drawn.
    if (cover.painted === false) out.painted = false;
    if (frameId === 0 && Array.isArray(cover.points)) out.points.push(...cover.points);
    if (cover.covered < uncovered.length) {
      throw new CommandError(ERR.SECRET_UNMASKABLE, `${uncovered.length - cover.covered} frame(s) of tab ${tabId} can be neither read nor covered, so their secrets could not be masked: no screenshot was taken`, { data: { tab_id: tabId } });
    }
  }

  const remove = () => Promise.all(masked.map((frameId) => inPage(at, 'unmask', {}, { frameId }).catch(() => null)));
  // Whether every masked frame's secrets stayed where their boxes are (asked after the capture).
  const settled = async () => {
    const answers = await Promise.all(masked.map((frameId) => inPage(at, 'mask_settled', {}, { signal, frameId }).catch(() => ({ settled: false }))));
    return answers.every((a) => a && a.settled);
  };
  try {
    await maskFrame(0);
  } catch (err) {
    await remove();
    throw err;
  }
  return { ...out, remove, settled };
}
