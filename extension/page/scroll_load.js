// Infinite scroll, the page's half of one step: scroll the rows' end into view and wait for more rows
// (or a visible until_selector; without one, the feed's own end notice, page/feed_end.js). Feeds load
// on a scroll trigger (an IntersectionObserver, a scroll listener, htmx's "revealed") or behind a
// "Load more" / "View more" button: after the scroll has had its frame and no row came, the answer
// says a button is there (`button`), and the worker, which sees the tab's requests, has it pressed
// (`press`) only when no request started, so a scroll trigger that fired is never doubled by a click.
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

  // The rows there were when the last answer saw the end notice (per row and until selector).
  let endShown = null;

  // The frame after the last batch came, started as it came (a re-injection only costs one more frame).
  let grewFrame = null;

  // `scroll: false` waits again without scrolling (the worker saw a request still in flight), counting
  // new rows from `before`, the count of the first call. `press`: click the load-more control (the
  // worker saw no request start after the scroll) and wait. `quiet_ms`: answer once nothing changed
  // for that long (the worker decides whether the feed has ended: it sees the tab's requests).
  agent.commands.scroll_load = async ({ row_selector: rowSelector, until_selector: untilSelector, wait_ms: waitMs, quiet_ms: quietMs = null, scroll = true, press = false, before: given = null }) => {
    needSelector(rowSelector, 'row_selector');
    if (untilSelector !== null && untilSelector !== undefined) needSelector(untilSelector, 'until_selector');
    if (!Number.isInteger(waitMs) || waitMs <= 0) throw new agent.PageError('invalid_params', 'wait_ms must be a positive integer');
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
    };
    let start = () => {};
    if (press) {
      const control = loadMoreControl(rowSelector);
      if (control) {
        start = () => control.click();
        clicked = true;
      }
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
      if (loadMoreControl(rowSelector)) return outcome({ button: true });
    }
    return agent.waitForDom(ready, outcome, waitMs, start,
      // "until" (or the feed's own end notice) may be a class, attribute or style that changes on an
      // element already there.
      { attributes: true, quietMs: Number.isInteger(quietMs) && quietMs > 0 ? quietMs : 0 });
  };
})();
