// The page's half of pagination and infinite scroll. Both wait for the DOM to change with a
// MutationObserver (3 ms a page where polling each frame costs 16 ms), bounded by `wait_ms`; neither
// ever sleeps for a fixed time. A click that navigates is noticed by the worker (webNavigation): this
// document is on its way out then, and whatever it answers is not waited for.
(() => {
  const agent = globalThis.__tabpilotAgent.use('paginate', {
    needs: ['PageError', 'isVisible', 'queryAll'],
    provides: ['isDisabledControl', 'commands.paginate', 'commands.scroll_load'],
    later: ['feedEnd'],
  });

  const positiveMs = (value) => {
    if (!Number.isInteger(value) || value <= 0) throw new agent.PageError('invalid_params', 'wait_ms must be a positive integer');
    return value;
  };

  const needSelector = (value, what) => {
    if (typeof value !== 'string' || !value.trim()) throw new agent.PageError('invalid_params', `${what} must be a CSS selector`);
    agent.queryAll(value); // an invalid one is invalid_selector now, not a silent miss later
    return value;
  };

  /** Turned off: the disabled attribute, aria-disabled="true", or a class with "disabled" in it on the
   * control or its parent (Bootstrap-like pagers mark the <li> around the link). */
  function isDisabled(el) {
    if (el.disabled === true || el.hasAttribute('disabled')) return true;
    if (el.getAttribute('aria-disabled') === 'true') return true;
    for (const node of [el, el.parentElement]) {
      if (node && typeof node.className === 'string' && node.className.toLowerCase().includes('disabled')) return true;
    }
    return false;
  }

  agent.isDisabledControl = isDisabled; // the same end test for a fetched page's next link (page/fetch.js)

  /** What the rows say now: their number and their text, in order. */
  function rowState(selector) {
    const rows = document.querySelectorAll(selector);
    return { n: rows.length, text: Array.from(rows, (r) => r.textContent).join('\u0001') };
  }

  /** Resolve with `outcome()` when `ready()` holds after a DOM change, or with `outcome()` at `waitMs`.
   * With `quietMs`, also once the DOM has not changed for that long (`{...outcome(), quiet: true}`).
   * With `settled`, only once `settled()` (a key of what was read) stays the same over one turn. */
  function waitForDom(ready, outcome, waitMs, start, { attributes = false, onLeave = null, quietMs = 0, settled = null } = {}) {
    return new Promise((resolve) => {
      let timer = null;
      let quiet = null;
      let settling = false;
      const rearm = () => {
        if (!quietMs) return;
        clearTimeout(quiet);
        quiet = setTimeout(() => finish({ ...outcome(), quiet: true }), quietMs);
      };
      // One turn after the change, the same again: a redraw that lands over several tasks (rows
      // filled a chunk at a time) is read whole. A clock ticking elsewhere on the page changes no key.
      const settle = (key) => afterTurn(() => {
        const now = settled();
        if (now === key && ready()) finish(outcome());
        else if (ready()) settle(now);
        else settling = false;
      });
      const observer = new MutationObserver((records) => {
        // A loader's spinner turning (an attribute) is not news from the feed; rows and text are.
        if (!ready()) {
          if (records.some((r) => r.type !== 'attributes')) rearm();
        } else if (!settled) finish(outcome());
        else if (!settling) {
          settling = true;
          settle(settled());
        }
      });
      const leave = () => finish(onLeave());
      function finish(value) {
        observer.disconnect();
        clearTimeout(timer);
        clearTimeout(quiet);
        if (onLeave) removeEventListener('pagehide', leave);
        resolve(value);
      }
      observer.observe(document, { childList: true, subtree: true, characterData: true, attributes });
      if (onLeave) addEventListener('pagehide', leave);
      timer = setTimeout(() => finish(outcome()), waitMs);
      start();
      rearm();
    });
  }

  /** Run `fn` in a task of its own, after the tasks already queued (no timer clamping, no frame). */
  function afterTurn(fn) {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      fn();
    };
    channel.port2.postMessage(null);
  }

  /** After the next frame has been rendered; a hidden tab renders none, so at most 100 ms. */
  const renderedFrame = () => new Promise((resolve) => {
    const fallback = setTimeout(resolve, 100);
    requestAnimationFrame(() => setTimeout(() => {
      clearTimeout(fallback);
      resolve();
    }, 0));
  });

  agent.commands.paginate = ({ next_selector: nextSelector, row_selector: rowSelector, wait_ms: waitMs }) => {
    needSelector(nextSelector, 'next_selector');
    needSelector(rowSelector, 'row_selector');
    positiveMs(waitMs);
    const here = () => location.href;
    // A control hidden on the last page (display: none) counts as missing.
    const next = [...document.querySelectorAll(nextSelector)].find((el) => agent.isVisible(el));
    if (!next) return { outcome: 'end', reason: 'missing', url: here() };
    if (isDisabled(next)) return { outcome: 'end', reason: 'disabled', url: here() };
    const before = rowState(rowSelector);
    // An emptied table is a redraw still under way (cleared, then filled), not a new page.
    const changed = () => {
      const now = rowState(rowSelector);
      return now.n > 0 && (now.n !== before.n || now.text !== before.text);
    };
    return waitForDom(
      changed,
      () => (changed() ? { outcome: 'redrawn', reason: null, url: here() } : { outcome: 'end', reason: 'unchanged', url: here() }),
      waitMs,
      () => {
        next.scrollIntoView({ block: 'center', inline: 'nearest' });
        next.click();
      },
      { onLeave: () => ({ outcome: 'leaving', reason: null, url: here() }), settled: () => rowState(rowSelector).text },
    );
  };

  // The frame after the last batch came, started as it came (a re-injection only costs one more frame).
  let grewFrame = null;

  // `scroll: false` waits again without scrolling (the worker saw a request still in flight), counting
  // new rows from `before`, the count of the first call. `quiet_ms`: answer once nothing changed for
  // that long (the worker decides whether the feed has ended: it sees the tab's requests).
  agent.commands.scroll_load = async ({ row_selector: rowSelector, until_selector: untilSelector, wait_ms: waitMs, quiet_ms: quietMs = null, scroll = true, before: given = null }) => {
    needSelector(rowSelector, 'row_selector');
    if (untilSelector !== null && untilSelector !== undefined) needSelector(untilSelector, 'until_selector');
    positiveMs(waitMs);
    const count = () => document.querySelectorAll(rowSelector).length;
    // "Shows up" means a person could see it: feed libraries keep their end marker in the DOM from the
    // start with display: none, and show it at the end.
    // Without one, the feed's own end notice counts (page/feed_end.js).
    const own = !untilSelector;
    if (own) agent.feedEnd.start(rowSelector);
    const found = () => (own ? agent.feedEnd.shown(rowSelector) : [...document.querySelectorAll(untilSelector)].some((el) => agent.isVisible(el)));
    const before = Number.isInteger(given) ? given : count();
    const outcome = () => {
      const end = found();
      const after = count();
      // The next scroll waits for this frame (below); it starts now, while the answer travels.
      if (after > before) grewFrame = renderedFrame();
      return { before, after, until_found: end, ...(end && own ? { end_notice: true } : {}) };
    };
    if (found() || count() > before) return outcome();
    // Loaders watch the end of the list with an IntersectionObserver, which samples once a frame: a
    // scroll in the same frame as the last batch's arrival would look like no movement at all. A frame
    // rendered since the last batch came is enough, and usually has been by the time we are asked.
    if (scroll) await (grewFrame || renderedFrame());
    grewFrame = null;
    if (count() > before || found()) return outcome();
    return waitForDom(
      () => count() > before || found(),
      outcome,
      waitMs,
      () => {
        if (!scroll) return;
        // The rows may live in their own scrolling box: bring the last one into view, then the page end.
        const rows = document.querySelectorAll(rowSelector);
        if (rows.length) rows[rows.length - 1].scrollIntoView({ block: 'end', inline: 'nearest' });
        const root = document.scrollingElement || document.documentElement;
        globalThis.scrollTo(0, root.scrollHeight);
      },
      // "until" (or the feed's own end notice) may be a class, attribute or style that changes on an
      // element already there.
      { attributes: true, quietMs: Number.isInteger(quietMs) && quietMs > 0 ? quietMs : 0 },
    );
  };
})();
