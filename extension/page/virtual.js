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

  /** Whether rows lie across both the top and the bottom line of the box's view (drawn, no blank). */
  function covered(box, selector) {
    const r = box.getBoundingClientRect();
    const top = r.top + 2;
    const bottom = Math.min(r.bottom, r.top + box.clientHeight) - 2;
    let high = false;
    let low = false;
    for (const row of document.querySelectorAll(selector)) {
      const b = row.getBoundingClientRect();
      high = high || (b.top <= top && b.bottom >= top);
      low = low || (b.top <= bottom && b.bottom >= bottom);
      if (high && low) return true;
    }
    return false;
  }

  /** How far below the top of the box's view the lowest drawn row starts (px; 0 when none does). */
  function lowestDrawn(box, selector) {
    const top = box.getBoundingClientRect().top;
    let low = 0;
    for (const row of document.querySelectorAll(selector)) low = Math.max(low, row.getBoundingClientRect().top - top);
    return Math.floor(low);
  }

  const frame = () => new Promise((resolve) => {
    const fallback = setTimeout(resolve, 50); // a hidden tab renders no frames
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

  /**
   * Rows of a virtualised grid: `read(row)` gives one row's JSON text, `keyOf(text)` a row's key when it
   * carries no index (null: the text itself); at most `limit` rows; stops at `deadline` (then
   * `complete` is false). Returns {texts in order, scrolls, complete, gaps, at_end, declared, keyed_by}.
   */
  agent.collectVirtual = async (selector, box, read, { limit, deadline, resume, keyOf = null }) => {
    // A read that ran out of time keeps what it had, here in the page; `resume` goes on from there.
    const kept = resume && agent.virtualRun && agent.virtualRun.selector === selector ? agent.virtualRun : null;
    agent.virtualRun = null;
    const seen = kept ? kept.seen : new Map();
    const first = document.querySelector(selector);
    const indexed = kept ? kept.indexed : first !== null && indexOf(first) !== null;
    // Every read of an indexed row replaces the one before: grids recycle row elements, and a recycled
    // row can carry its new index a frame before its cells show the new row's values. The last read, a
    // frame or more later (the row is still in view at the next position), is the settled one.
    const grabIndexed = () => {
      let added = 0;
      for (const row of document.querySelectorAll(selector)) {
        const k = indexOf(row);
        if (k === null) continue;
        if (!seen.has(k)) added += 1;
        seen.set(k, read(row));
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
      const same = last !== null && last.length === now.length && last.every(([, t], i) => t === now[i][1]);
      last = now;
      if (!same) return { added: 0, stable: false };
      let added = 0;
      for (const [y, text] of now) {
        const k = keyOf ? keyOf(text) : text;
        if (seen.has(k)) continue;
        seen.set(k, { y, text, n: seen.size });
        added += 1;
      }
      return { added, stable: true };
    };
    // Settled: an indexed grid once a frame brings no new row, the others once the rows read the same twice.
    const grab = indexed ? () => {
      const added = grabIndexed();
      return { added, stable: added === 0 };
    } : grabKeyed;
    const full = () => limit !== null && seen.size >= limit;
    const start = kept ? kept.start : box.scrollTop;
    let scrolls = kept ? kept.scrolls : 0;
    let complete = true;
    let atEnd = false;
    // Drawn: rows cover the view, and a frame passed with no new row (a grid may draw over frames).
    // `step`: after a scroll of ours. Rows known by their values must read the same twice, a task
    // apart when the grid drew them in its scroll handler (told it at once, below), else frames apart.
    const settle = async (until, step = false) => {
      let ticks = step && !indexed ? 2 : 0;
      await (ticks ? tick() : frame());
      let got = grab();
      let added = got.added;
      while (!got.stable || !covered(box, selector)) {
        if (Date.now() >= until) break;
        ticks -= 1;
        await (ticks > 0 && !got.stable ? tick() : frame());
        got = grab();
        added += got.added;
      }
      return added;
    };
    // From the top: the rows in view when asked may be anywhere in the grid.
    if (!kept) box.scrollTop = 0;
    await settle(Math.min(deadline, Date.now() + STEP_MS));
    while (!full()) {
      if (Date.now() > deadline) {
        if (resume !== undefined) {
          agent.virtualRun = { selector, seen, start, scrolls, indexed };
          return { texts: [], scrolls, complete: false, resume: true, read: seen.size, gaps: 0 };
        }
        complete = false;
        break;
      }
      const before = box.scrollTop;
      // On to the lowest row drawn (grids draw a buffer past the view), which stays in view so none is
      // skipped; at least most of a screen.
      box.scrollTop = before + Math.max(1, Math.floor(box.clientHeight * 0.8), lowestDrawn(box, selector));
      if (box.scrollTop === before) {
        atEnd = true; // the end
        break;
      }
      scrolls += 1;
      // The browser tells the grid at its next frame; grids that draw in their scroll handler draw now.
      if (!indexed) box.dispatchEvent(new Event('scroll'));
      await settle(Math.min(deadline, Date.now() + STEP_MS), true);
    }
    // The rows drawn at the end get their settled read too (within the time the worker gives the call):
    // the end counts once this last look brings no new row.
    const late = await settle(Math.min(Date.now() + STEP_MS, Math.max(deadline, Date.now()) + 300));
    if (late > 0) atEnd = false;
    box.scrollTop = start;
    const top = document.querySelector(selector);
    const aria = indexed && top !== null && top.hasAttribute('aria-rowindex') && seen.size ? Math.min(...seen.keys()) : null;
    const declared = top ? declaredCount(top, aria) : null;
    const out = { scrolls, at_end: atEnd, declared, keyed_by: indexed ? 'index' : keyOf ? 'key_fields' : 'values' };
    if (!indexed) {
      const texts = [...seen.values()].sort((a, b) => a.y - b.y || a.n - b.n).map((v) => v.text);
      return { ...out, texts: limit === null ? texts : texts.slice(0, limit), complete, gaps: 0 };
    }
    const keys = [...seen.keys()].sort((a, b) => a - b);
    const texts = keys.map((k) => seen.get(k));
    // Indexes run on without a hole in a grid read whole; a hole is a row never drawn while we looked.
    let gaps = 0;
    for (let i = 1; i < keys.length; i += 1) gaps += keys[i] - keys[i - 1] - 1;
    return { ...out, texts: limit === null ? texts : texts.slice(0, limit), complete: complete && gaps === 0, gaps };
  };
})();
