// Infinite scroll, the page's half: scroll the rows' end into view and wait for more rows (or a visible
// until_selector; without one, the feed's own end notice, page/feed_end.js), and again as soon as they
// came, up to `steps` times, so a batch costs the feed's own load and no round trip. Feeds load
// on a scroll trigger (an IntersectionObserver, a scroll listener, htmx's "revealed") or behind a
// "Load more" / "View more" button: after the scroll has had its frame and no row came, the answer
// says a button is there (`button`), and the worker, which sees the tab's requests, has it pressed
// (`press`) only when no request started, so a scroll trigger that fired is never doubled by a click;
// once its control has brought rows, the control is pressed at once on the next steps.
// Rows of a virtualised grid answer at once (`grid`): extract reads those (page/virtual.js).
// Waiting is a MutationObserver bounded by wait_ms, never a fixed time.
(() => {
  const agent = globalThis.__tabpilotAgent.use('scroll_load', {
    needs: ['PageError', 'isVisible', 'queryAll', 'feedEnd', 'virtualGrid', 'waitForDom', 'renderedFrame', 'isDisabledControl'],
    provides: ['commands.scroll_load', 'loadMoreControl'],
  });

  // The words of a control that loads the next batch in place ("Load more", "View more", "Show more
  // posts", "More results", "Older posts"); short, and the whole of the control's text.
  const LOAD_MORE = /^(load|show|view|see|get)( \d+)? (more|older|next)( [a-z]+)?$|^more( [a-z]+)?$|^(older|next) (posts|entries|items|results|stories)$/i;
  const CONTROLS = "button, [role=button], input[type=button], input[type=submit], a";
  // A link that leads somewhere would take the rows read so far away with this document.
  const LEAVES = "a[href]:not([href='#']):not([href^='javascript:' i]):not([role=button]), form *";

  const needSelector = (value, what) => {
    if (typeof value !== 'string' || !value.trim()) throw new agent.PageError('invalid_params', `${what} must be a CSS selector`);
    agent.queryAll(value);
    return value;
  };

  /** The visible, enabled load-more control after the last row (document order), or null. */
  function loadMoreControl(rowSelector) {
    const rows = document.querySelectorAll(rowSelector);
    const last = rows[rows.length - 1];
    if (!last) return null;
    for (const el of document.querySelectorAll(CONTROLS)) {
      if (last.contains(el) || !(last.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      const text = (el.localName === 'input' ? el.value : el.textContent).replace(/\s+/g, ' ').trim();
      if (!text || text.length > 40 || !LOAD_MORE.test(text.replace(/[…».!→]+$/, '').trim())) continue;
      if (el.matches(LEAVES) || agent.isDisabledControl(el) || !agent.isVisible(el)) continue;
      return el;
    }
    return null;
  }
  agent.loadMoreControl = loadMoreControl;

  /** The box the rows scroll in: their nearest scrolling ancestor, else the document. */
  function scroller(row) {
    for (let cur = row && row.parentElement; cur && cur !== document.body && cur !== document.documentElement; cur = cur.parentElement) {
      if (cur.scrollHeight <= cur.clientHeight + 1) continue;
      const { overflowY } = getComputedStyle(cur);
      if (overflowY === 'auto' || overflowY === 'scroll' || overflowY === 'overlay') return cur;
    }
    return document.scrollingElement || document.documentElement;
  }

  const atEnd = (box) => box.scrollTop + box.clientHeight >= box.scrollHeight - 2;

  // What loads a feed's next batch when it shows or is pressed: a load-more control, or an htmx-style
  // element that fetches once revealed (and is marked once it did). The worker reads "there was one and
  // none is left" as the feed's word that it ended (with the end notice, the only words it takes).
  const HOOKS = ['hx-trigger', 'data-hx-trigger'].map((a) => `[${a}*='revealed']:not([data-hx-revealed])`).join(', ');
  const hooks = (rowSelector) => document.querySelectorAll(HOOKS).length + (loadMoreControl(rowSelector) ? 1 : 0);

  // The rows there were when the last answer saw the end notice (per row and until selector).
  let endShown = null;

  // The latest call: an earlier one still scrolling (its worker gave up on it) stops at its next step.
  let calls = 0;

  // The frame after the last batch came, started as it came (a re-injection only costs one more frame).
  let grewFrame = null;

  /** One step: scroll the rows' end into view (or press the load-more control) and wait for rows. */
  async function step({ rowSelector, untilSelector, waitMs, quietMs, shortMs, scroll, press, given, moves }) {
    const count = () => document.querySelectorAll(rowSelector).length;
    const lastRow = () => {
      const rows = document.querySelectorAll(rowSelector);
      return rows[rows.length - 1] || null;
    };
    // "Shows up" means a person could see it: feed libraries keep their end marker in the DOM from the
    // start with display: none, and show it at the end. Without one, the feed's own end notice counts.
    const own = !untilSelector;
    if (own) agent.feedEnd.start(rowSelector);
    const shown = () => (own ? agent.feedEnd.shown(rowSelector) : [...document.querySelectorAll(untilSelector)].some((el) => agent.isVisible(el)));
    const before = Number.isInteger(given) ? given : count();
    // An end notice is one signal: a status block may show "End" between batches. Shown at the last
    // answer with as many rows as now, this step scrolls once more and waits for rows alone.
    const key = `${rowSelector}\n${untilSelector || ''}`;
    const confirming = endShown !== null && endShown.key === key && endShown.rows === before;
    const found = () => !confirming && shown();
    let clicked = false;
    const outcome = (extra = {}) => {
      const end = shown();
      const after = count();
      endShown = end ? { key, rows: after } : null;
      // The next scroll waits for this frame (below); it starts now, while the answer travels.
      if (after > before) grewFrame = agent.renderedFrame();
      return {
        before, after, until_found: end, at_end: atEnd(scroller(lastRow())),
        ...(end && own ? { end_notice: true } : {}), ...(clicked ? { clicked } : {}), ...(confirming ? { confirming } : {}), ...extra,
      };
    };
    const ready = () => count() > before || found();
    if (ready()) return outcome();
    // A virtualised grid's rows are not a feed: extract reads them scrolling the grid's own box.
    if (scroll && !press && agent.virtualGrid([...document.querySelectorAll(rowSelector)], false)) return outcome({ grid: true });
    const toEnd = () => {
      const last = lastRow();
      if (last) last.scrollIntoView({ block: 'end', inline: 'nearest' });
      const box = scroller(last);
      box.scrollTop = box.scrollHeight;
      const root = document.scrollingElement || document.documentElement;
      if (box !== root) globalThis.scrollTo(0, root.scrollHeight);
      moves.push({ at: Date.now(), press: false });
    };
    let start = () => {};
    // A feed that loads on its control has it pressed at once; with none left, one scroll (an end is
    // proven by a scroll that brings nothing).
    const control = press ? loadMoreControl(rowSelector) : null;
    if (control) {
      start = () => {
        moves.push({ at: Date.now(), press: true });
        control.click();
      };
      clicked = true;
    } else if (scroll) {
      // Loaders watch the end of the list with an IntersectionObserver, which samples once a frame: a
      // scroll in the same frame as the last batch's arrival would look like no movement at all.
      await (grewFrame || agent.renderedFrame());
      grewFrame = null;
      if (ready()) return outcome();
      toEnd();
      // The scroll's own frame: a trigger fires in it (its rows come later, its request at once).
      await agent.renderedFrame();
      if (ready()) return outcome();
      if (!press && loadMoreControl(rowSelector)) return outcome({ button: true });
    }
    // The feed's pace, not all of quiet_ms, only when nothing of its loader is left: a control just
    // pressed, or a row still to load once revealed, says the feed goes on.
    const quiet = Number.isInteger(shortMs) && !clicked && hooks(rowSelector) === 0 ? shortMs : quietMs;
    return agent.waitForDom(ready, (extra) => outcome({ ...extra, ...(Number.isInteger(shortMs) && quiet === shortMs ? { short: true } : {}) }), waitMs, start,
      // "until" (or the feed's own end notice) may be a class, attribute or style that changes on an
      // element already there.
      { attributes: true, quietMs: Number.isInteger(quiet) && quiet > 0 ? quiet : 0 });
  }

  // `steps`: up to that many steps, the next one as soon as the last one's rows came (a step that
  // brings none, the end notice, a load-more control to decide on or `limit` rows end the run; the
  // answer is the last step's, `before` its own). `scroll: false` waits again without scrolling (the
  // worker saw a request still in flight), counting new rows from `before`, the count of the first
  // call. `press`: click the load-more control (the worker saw no request start after the scroll, or
  // this feed's batches came that way) and wait; with none there, scroll. `quiet_ms`: a step answers
  // once nothing changed for that long (the worker decides whether the feed has ended: it sees the
  // tab's requests); `short_ms` instead, on the step confirming the feed's word that it ended, when
  // nothing of its loader is left (answered with `short`). `moves`: when each scroll or press happened,
  // and which (the worker times the feed's requests from them).
  agent.commands.scroll_load = async ({ row_selector: rowSelector, until_selector: untilSelector, wait_ms: waitMs, quiet_ms: quietMs = null, scroll = true, press = false, before: given = null, steps = 1, limit = null, had_hooks: hadHooks = false, short_ms: shortMs = null }) => {
    needSelector(rowSelector, 'row_selector');
    if (untilSelector !== null && untilSelector !== undefined) needSelector(untilSelector, 'until_selector');
    if (!Number.isInteger(waitMs) || waitMs <= 0) throw new agent.PageError('invalid_params', 'wait_ms must be a positive integer');
    if (!Number.isInteger(steps) || steps < 1) throw new agent.PageError('invalid_params', 'steps must be a positive integer');
    calls += 1;
    const call = calls;
    const moves = [];
    const args = { rowSelector, untilSelector, waitMs, quietMs, shortMs, scroll, press, given, moves };
    let had = hadHooks || hooks(rowSelector) > 0;
    let out = await step(args);
    let done = 1;
    let left = hooks(rowSelector);
    // The feed's loader gone ends the run too: the worker has the next step confirm it.
    const more = () => call === calls && done < steps && out.after > out.before && !out.until_found && !out.grid && !out.button
      && !(Number.isInteger(limit) && out.after >= limit) && !(had && left === 0);
    while (more()) {
      had = had || left > 0;
      out = await step({ ...args, scroll: true, given: null, shortMs: null });
      done += 1;
      left = hooks(rowSelector);
    }
    return { ...out, steps: done, moves, hooks: left, had_hooks: had || left > 0 };
  };
})();
