// The page's half of pagination and infinite scroll. Both wait for the DOM to change with a
// MutationObserver (3 ms a page where polling each frame costs 16 ms), bounded by `wait_ms`; neither
// ever sleeps for a fixed time. A click that navigates is noticed by the worker (webNavigation): this
// document is on its way out then, and whatever it answers is not waited for.
(() => {
  const agent = globalThis.__tabpilotAgent.use('paginate', {
    needs: ['PageError', 'isVisible', 'queryAll'],
    provides: ['isDisabledControl', 'commands.paginate', 'commands.scroll_load'],
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
   * With `quietMs`, also once the DOM has not changed for that long (`{...outcome(), quiet: true}`). */
  function waitForDom(ready, outcome, waitMs, start, { attributes = false, onLeave = null, quietMs = 0 } = {}) {
    return new Promise((resolve) => {
      let timer = null;
      let quiet = null;
      const rearm = () => {
        if (!quietMs) return;
        clearTimeout(quiet);
        quiet = setTimeout(() => finish({ ...outcome(), quiet: true }), quietMs);
      };
      const observer = new MutationObserver(() => {
        if (ready()) finish(outcome());
        else rearm();
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
      { onLeave: () => ({ outcome: 'leaving', reason: null, url: here() }) },
    );
  };

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
    const found = () => Boolean(untilSelector) && [...document.querySelectorAll(untilSelector)].some((el) => agent.isVisible(el));
    const before = Number.isInteger(given) ? given : count();
    const outcome = () => ({ before, after: count(), until_found: found() });
    if (found() || count() > before) return outcome();
    // Loaders watch the end of the list with an IntersectionObserver, which samples once a frame: a
    // scroll in the same frame as the last batch's arrival would look like no movement at all.
    if (scroll) await renderedFrame();
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
      // "until" may be a class, attribute or style that changes on an element already there.
      { attributes: Boolean(untilSelector), quietMs: Number.isInteger(quietMs) && quietMs > 0 ? quietMs : 0 },
    );
  };
})();
