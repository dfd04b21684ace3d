// Virtualised grids (AG Grid, Tabulator, Clusterize, react-window, TanStack Virtual) keep only the rows
// in view in the DOM. Extract walks such a grid's own scrolling box from the top to the end, reads the
// rows each position shows, keeps each row once by its index (aria-rowindex, AG Grid's row-index,
// TanStack's data-index) and returns them in index order; rows without one are kept once by the
// key_fields the call names, else by their whole values, in the order they stand in the box. The box
// is scrolled back where it was. Each step waits for the grid to render new rows (checked once a
// frame, bounded), never for a fixed time.
(() => {
  const agent = globalThis.__tabpilotAgent.use('virtual', {
    needs: [],
    provides: ['virtualGrid', 'collectVirtual', 'virtualRun'],
  });
  const INDEX_ATTRS = ['aria-rowindex', 'row-index', 'data-index'];
  // One step waits at most this long for the grid to draw the rows of a new position.
  const STEP_MS = 2_000;

  function indexOf(row) {
    for (const name of INDEX_ATTRS) {
      const raw = row.getAttribute(name);
      if (raw !== null && /^\d+$/.test(raw.trim())) return Number(raw);
    }
    return null;
  }

  /** The nearest ancestor of `el` that scrolls vertically by itself (not the document). */
  function scroller(el) {
    for (let cur = el.parentElement; cur && cur !== document.body && cur !== document.documentElement; cur = cur.parentElement) {
      if (cur.scrollHeight <= cur.clientHeight + 1) continue;
      const { overflowY } = getComputedStyle(cur);
      if (overflowY === 'auto' || overflowY === 'scroll' || overflowY === 'overlay') return cur;
    }
    return null;
  }

  /** The grid's scrolling box when `rows` are a virtualised grid's (or `forced`), else null: rows with
   * an index in a box of their own, or rows without one in a box whose content is taller than the rows
   * by more than a screen (the room of the rows not drawn). */
  agent.virtualGrid = (rows, forced) => {
    const first = rows[0];
    if (!first) return null;
    const box = scroller(first);
    if (indexOf(first) === null && !forced) {
      if (!box) return null;
      const span = rows[rows.length - 1].getBoundingClientRect().bottom - first.getBoundingClientRect().top;
      return box.scrollHeight - span > box.clientHeight ? box : null;
    }
    if (!box && forced) return document.scrollingElement || document.documentElement;
    return box;
  };

  /** The grid's own row count: its aria-rowcount less the rows before its first data row (headers),
   * told by the first data row's aria-rowindex when the rows carry one (`first`), else by the header
   * rows it marks (a row of column headers); null when the grid declares none. */
  function declaredCount(row, first) {
    const grid = row.closest('[aria-rowcount]');
    const raw = grid ? Number(grid.getAttribute('aria-rowcount')) : NaN;
    if (!Number.isInteger(raw) || raw < 0) return null;
    if (first !== null) return raw - (first - 1);
    let heads = 0;
    for (const r of grid.querySelectorAll('[role=row], thead tr')) if (r.querySelector('[role=columnheader], th')) heads += 1;
    return raw - heads;
  }

  // A count a grid prints beside its rows: "Showing 1 to 20 of 2,000 entries", "1–20 of 2000",
  // "2,000 rows". Thousands may be grouped with a comma, a dot or a (narrow, no-break) space.
  const NUMBER = String.raw`(\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+|\d+)`;
  const OF_TOTAL = new RegExp(String.raw`\bof\s+${NUMBER}(?!\s*[\d%])`, 'i');
  const COUNTED = new RegExp(String.raw`${NUMBER}\s+(?:rows?|entries|items|records|results)\b`, 'i');
  const PRINT_LEVELS = 3;

  /** The count printed next to the grid's box (outside its rows): the nearest of the box's first
   * PRINT_LEVELS ancestors whose own text (not the box's) holds one; null when none does. A hint, not a
   * declaration: it counts as evidence only when the read matches it (a page may print a page size). */
  function printedCount(box) {
    let cur = box.parentElement;
    for (let level = 0; cur && level < PRINT_LEVELS && cur !== document.body; level += 1, cur = cur.parentElement) {
      let text = '';
      const walk = document.createTreeWalker(cur, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (box.contains(n) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) });
      for (let n = walk.nextNode(); n && text.length < 2_000; n = walk.nextNode()) text += ` ${n.nodeValue}`;
      text = text.replace(/\s+/g, ' ');
      const m = OF_TOTAL.exec(text) || COUNTED.exec(text);
      if (m) return Number(m[1].replace(/[^\d]/g, ''));
    }
    return null;
  }

  /** Whether rows lie across both the top and the bottom line of the box's view (drawn, no blank).
   * With `lead`, at the very top of the box rows that all start below its top line count too: the box
   * holds something above its first row there (a header row that stays in place, padding). The caller
   * allows it only once the grid has had frames to draw that position, else a blank not yet filled
   * would pass for it. */
  function covered(box, selector, lead = false) {
    const r = box.getBoundingClientRect();
    const top = r.top + 2;
    const bottom = Math.min(r.bottom, r.top + box.clientHeight) - 2;
    let high = false;
    let below = lead && box.scrollTop === 0;
    let low = false;
    for (const row of document.querySelectorAll(selector)) {
      const b = row.getBoundingClientRect();
      if (b.height === 0) continue;
      high = high || (b.top <= top && b.bottom >= top);
      below = below && b.top > top;
      low = low || (b.top <= bottom && b.bottom >= bottom);
    }
    return (high || below) && low;
  }

  /** Where the drawn rows lie in the box's content (px from its top): the highest row's top, the
   * lowest row's top, and the tallest row's height. Rows not laid out (hidden) do not count. */
  function drawnSpan(box, selector) {
    const top = box.getBoundingClientRect().top - box.scrollTop;
    let high = Infinity;
    let low = -Infinity;
    let tall = 0;
    for (const row of document.querySelectorAll(selector)) {
      const b = row.getBoundingClientRect();
      if (b.height === 0) continue;
      high = Math.min(high, b.top - top);
      low = Math.max(low, b.top - top);
      tall = Math.max(tall, b.height);
    }
    return low === -Infinity ? null : { high, low, tall };
  }

  // A hidden tab renders no frames, so a wait for one ends after a moment there; in a shown tab it
  // waits for the frame itself, however late a busy machine draws it (a grid draws in its frames: a
  // read taken "a frame later" that came early would take half-drawn rows for settled ones).
  const frameLimit = () => (document.visibilityState === 'hidden' ? 50 : 1_000);

  const frame = () => new Promise((resolve) => {
    const fallback = setTimeout(resolve, frameLimit());
    requestAnimationFrame(() => {
      clearTimeout(fallback);
      resolve();
    });
  });

  /** After the tasks queued before this one (a grid's own deferred drawing among them). */
  const tick = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });

  /** The next change under `box` (answers 'change', once the task that made it is done) or the next
   * frame ('frame'), whichever comes first: a grid that draws in a task of its own is seen at once. */
  const changeOrFrame = (box) => new Promise((resolve) => {
    let done = false;
    const finish = (how) => {
      if (done) return;
      done = true;
      watch.disconnect();
      clearTimeout(fallback);
      resolve(how);
    };
    const watch = new MutationObserver(() => finish('change'));
    watch.observe(box, { childList: true, subtree: true, attributes: true, characterData: true });
    const fallback = setTimeout(() => finish('frame'), frameLimit());
    requestAnimationFrame(() => finish('frame'));
  });

  /**
   * Rows of a virtualised grid: `read(row)` gives one row's JSON text, `keyOf(text)` a row's key when it
   * carries no index (null: the text itself); at most `limit` rows; at `deadline`, keeps what it read
   * for a `resume` and answers {resume: true}, or with `keep` false answers the rows read (then
   * `complete` is false). Returns {texts in order, scrolls, complete, gaps, at_end, declared, printed, keyed_by}.
   */
  agent.collectVirtual = async (selector, box, read, { limit, deadline, resume, keep = true, keyOf = null }) => {
    // A read that ran out of time keeps what it had, here in the page; `resume` goes on from there.
    const kept = resume && agent.virtualRun && agent.virtualRun.selector === selector ? agent.virtualRun : null;
    agent.virtualRun = null;
    const seen = kept ? kept.seen : new Map();
    const first = document.querySelector(selector);
    const indexed = kept ? kept.indexed : first !== null && indexOf(first) !== null;
    // Indexed rows count once they read the same a frame apart: grids recycle row elements, and a
    // recycled row can carry its new index a frame before its cells show the new row's values (AG Grid
    // fills cells in animation frames). Every settled read of a row replaces the one before.
    const readIndexed = () => {
      const now = [];
      for (const row of document.querySelectorAll(selector)) {
        const k = indexOf(row);
        if (k !== null) now.push([k, read(row)]);
      }
      return now;
    };
    const same = (a, b) => a !== null && a.length === b.length && a.every(([k, t], i) => k === b[i][0] && t === b[i][1]);
    const highest = () => {
      let top = -1;
      for (const row of document.querySelectorAll(selector)) top = Math.max(top, indexOf(row) ?? -1);
      return top;
    };
    // Drawn after a step: rows cover the view and the grid has answered the scroll (a row index past
    // the last one seen, or two frames); then settled once the rows read the same a frame apart.
    let past = -1; // the highest row index drawn before the step
    // After a step, the rows drawn are read again at the start of the next frame, in the same wait as
    // the next step (`pending` holds the first read until then; see the loop below): half the frames a
    // step. Given up for the rest of the read once a grid draws the next step before that second read.
    let ahead = indexed;
    let pending = null;
    const settleIndexed = async (until, step) => {
      let frames = 0;
      while (!(covered(box, selector, frames >= 2) && (!step || frames >= 2 || highest() > past)) && Date.now() < until) {
        if ((await changeOrFrame(box)) === 'frame') frames += 1;
      }
      if (step && ahead) {
        pending = readIndexed();
        return 0;
      }
      return confirmIndexed(readIndexed(), until);
    };
    const confirmIndexed = async (first, until) => {
      let last = first;
      for (;;) {
        if (Date.now() >= until) break;
        await frame();
        const now = readIndexed();
        if (same(last, now)) break;
        last = now;
      }
      let added = 0;
      for (const [k, text] of last) {
        if (!seen.has(k)) added += 1;
        seen.set(k, text);
      }
      return added;
    };
    // Rows without an index are known by their values, so a half-redrawn row would pass for a new one:
    // the rows in view count once they read the same two frames running. Each keeps its place in the
    // box's content (its first sighting), which orders them.
    let last = null;
    const grabKeyed = () => {
      const top = box.getBoundingClientRect().top - box.scrollTop;
      const now = [...document.querySelectorAll(selector)].map((row) => [row.getBoundingClientRect().top - top, read(row)]);
      const stable = last !== null && last.length === now.length && last.every(([, t], i) => t === now[i][1]);
      last = now;
      if (!stable) return { added: 0, stable: false };
      let added = 0;
      for (const [y, text] of now) {
        const k = keyOf ? keyOf(text) : text;
        if (seen.has(k)) continue;
        seen.set(k, { y, text, n: seen.size });
        added += 1;
      }
      return { added, stable: true };
    };
    // Drawn: rows cover the view and read the same twice, a task apart when the grid drew them in its
    // scroll handler (told it at once, below) after a step of ours, else frames apart.
    // A position whose rows never read the same twice was not read at all, and the next step moves past
    // it: its rows are waited for as long as the whole read may take (a busy machine draws late), and a
    // read that still missed them is not complete. A view the rows never cover costs a step's bound only.
    let unread = false;
    const settleKeyed = async (until, step) => {
      let ticks = step ? 2 : 0;
      await (ticks ? tick() : frame());
      let got = grabKeyed();
      let added = got.added;
      while (!got.stable || !covered(box, selector)) {
        if (Date.now() >= (got.stable ? until : Math.max(until, deadline))) break;
        ticks -= 1;
        await (ticks > 0 && !got.stable ? tick() : frame());
        got = grabKeyed();
        added += got.added;
      }
      if (!got.stable) unread = true;
      return added;
    };
    const settle = indexed ? settleIndexed : settleKeyed;
    const flush = async (until) => {
      const rows = pending;
      pending = null;
      if (rows) await confirmIndexed(rows, until);
    };
    const full = () => limit !== null && seen.size >= limit;
    const start = kept ? kept.start : box.scrollTop;
    let scrolls = kept ? kept.scrolls : 0;
    // Whether a step may also count on the rows the grid draws above its view (its buffer): until a
    // step so long left a hole (the rows drawn no longer reach the lowest row of the position before).
    let reach = kept ? kept.reach : true;
    let complete = true;
    let atEnd = false;
    // From the top: the rows in view when asked may be anywhere in the grid.
    if (!kept) box.scrollTop = 0;
    await settle(Math.min(deadline, Date.now() + STEP_MS), false);
    while (!full()) {
      if (Date.now() > deadline) {
        await flush(Date.now() + 300);
        if (keep) {
          agent.virtualRun = { selector, seen, start, scrolls, indexed, reach };
          return { texts: [], scrolls, complete: false, resume: true, read: seen.size, gaps: 0 };
        }
        complete = false;
        break;
      }
      const before = box.scrollTop;
      const span = drawnSpan(box, selector);
      if (indexed) past = highest();
      // On to the lowest row drawn (grids draw a buffer past the view), which stays in view so none is
      // skipped; past it by the rows the grid draws above its view, less a row, while that held; at
      // least most of a screen.
      const buffer = reach && span ? Math.max(0, before - span.high) - span.tall : 0;
      const onward = span ? Math.max(0, span.low - before + Math.max(0, buffer)) : 0;
      // The rows of this position are read again at the next frame, before the grid draws the step:
      // frame callbacks run in the order asked for, and this one is asked for before the grid hears.
      const first = pending;
      pending = null;
      const again = first ? frame() : null;
      box.scrollTop = before + Math.max(1, Math.floor(box.clientHeight * 0.8), Math.floor(onward));
      if (box.scrollTop === before) {
        atEnd = true; // the end
        if (first) await confirmIndexed(first, Math.min(deadline, Date.now() + STEP_MS));
        break;
      }
      scrolls += 1;
      // The browser tells the grid at its next frame; grids that draw in their scroll handler draw now.
      box.dispatchEvent(new Event('scroll'));
      if (first) {
        await again;
        if (!same(first, readIndexed())) {
          // The grid drew the step (or changed the rows) first: back, and from here each position is
          // read again a frame apart before the next step.
          ahead = false;
          box.scrollTop = before;
          box.dispatchEvent(new Event('scroll'));
          await settle(Math.min(deadline, Date.now() + STEP_MS), true);
          continue;
        }
        for (const [k, text] of first) seen.set(k, text);
      }
      await settle(Math.min(deadline, Date.now() + STEP_MS), true);
      const after = drawnSpan(box, selector);
      if (buffer > 0 && span && after && after.high > span.low + 1) {
        // A hole: the rows drawn start below the lowest of the last position. Back to it, by safe steps.
        await flush(Math.min(deadline, Date.now() + STEP_MS));
        reach = false;
        box.scrollTop = Math.max(before, Math.floor(span.low));
        box.dispatchEvent(new Event('scroll'));
        await settle(Math.min(deadline, Date.now() + STEP_MS), true);
      }
    }
    await flush(Math.min(Date.now() + STEP_MS, Math.max(deadline, Date.now()) + 300));
    // The rows drawn at the end get their settled read too (within the time the worker gives the call):
    // the end counts once this last look brings no new row.
    const late = await settle(Math.min(Date.now() + STEP_MS, Math.max(deadline, Date.now()) + 300), false);
    if (late > 0) atEnd = false;
    box.scrollTop = start;
    const top = document.querySelector(selector);
    const aria = indexed && top !== null && top.hasAttribute('aria-rowindex') && seen.size ? Math.min(...seen.keys()) : null;
    const declared = top ? declaredCount(top, aria) : null;
    const printed = declared === null ? printedCount(box) : null;
    const out = { scrolls, at_end: atEnd, declared, printed, keyed_by: indexed ? 'index' : keyOf ? 'key_fields' : 'values' };
    if (!indexed) {
      const texts = [...seen.values()].sort((a, b) => a.y - b.y || a.n - b.n).map((v) => v.text);
      return { ...out, texts: limit === null ? texts : texts.slice(0, limit), complete: complete && !unread, gaps: 0 };
    }
    const keys = [...seen.keys()].sort((a, b) => a - b);
    const texts = keys.map((k) => seen.get(k));
    // Indexes run on without a hole in a grid read whole; a hole is a row never drawn while we looked.
    let gaps = 0;
    for (let i = 1; i < keys.length; i += 1) gaps += keys[i] - keys[i - 1] - 1;
    return { ...out, texts: limit === null ? texts : texts.slice(0, limit), complete: complete && gaps === 0, gaps };
  };
})();
