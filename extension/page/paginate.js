// The page's half of pagination (infinite scroll: page/scroll_load.js). Both wait for the DOM to change with a
// MutationObserver (3 ms a page where polling each frame costs 16 ms; a redraw in place is told
// complete by page/redraw.js), bounded by `wait_ms`; neither ever sleeps for a fixed time. A click that navigates is noticed by the worker (webNavigation): this
// document is on its way out then, and whatever it answers is not waited for.
(() => {
  const agent = globalThis.__tabpilotAgent.use('paginate', {
    needs: ['PageError', 'isVisible', 'queryAll', 'redraw', 'commands.extract'],
    provides: ['isDisabledControl', 'commands.paginate', 'waitForDom', 'renderedFrame'],
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

  agent.isDisabledControl = isDisabled; // the same end test for a fetched page's next link (page/next_link.js)

  /** Resolve with `outcome()` when `ready()` holds after a DOM change, or with `outcome()` at `waitMs`.
   * With `quietMs`, also once the DOM has not changed for that long (`{...outcome(), quiet: true}`). */
  function waitForDom(ready, outcome, waitMs, start, { attributes = false, quietMs = 0 } = {}) {
    return new Promise((resolve) => {
      let timer = null;
      let quiet = null;
      const rearm = () => {
        if (!quietMs) return;
        clearTimeout(quiet);
        quiet = setTimeout(() => finish({ ...outcome(), quiet: true }), quietMs);
      };
      const observer = new MutationObserver((records) => {
        // A loader's spinner turning (an attribute) is not news from the feed; rows and text are.
        if (ready()) finish(outcome());
        else if (records.some((r) => r.type !== 'attributes')) rearm();
      });
      function finish(value) {
        observer.disconnect();
        clearTimeout(timer);
        clearTimeout(quiet);
        resolve(value);
      }
      observer.observe(document, { childList: true, subtree: true, characterData: true, attributes });
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

  // A control that asks the server for a page: a real link, or anything inside a form. Clicked after
  // the first page of a command, its new document would take the pages read so far down with this one.
  const LOADS = "a[href]:not([href^='#']):not([href^='javascript:' i]), form *";

  const visibleNext = (selector) => [...document.querySelectorAll(selector)].find((el) => agent.isVisible(el));

  /** Click `next`; the redraw's outcome ("redrawn" with the rows read as `value`, "unchanged", "leaving"). */
  function clickAndWait(next, rowSelector, waitMs, read) {
    const was = agent.redraw.before(rowSelector);
    const click = () => {
      next.scrollIntoView({ block: 'center', inline: 'nearest' });
      next.click();
    };
    return agent.redraw.wait(rowSelector, was, waitMs, click, read, () => null);
  }

  // With `fields`, the rows of a page redrawn in place are read the moment the redraw completes, and
  // up to `pages` pages are clicked through in one command (more: the pages after the first, in
  // order), while the command has run less than `budget_ms` and its rows make less than `max_batch`
  // characters of JSON; `end` says why it stopped. A navigation answers as before (the worker reads
  // the new document).
  agent.commands.paginate = async ({
    next_selector: nextSelector, row_selector: rowSelector, wait_ms: waitMs, fields = null, limit = null,
    virtual = null, max_chars: maxChars = null, pages = 1, budget_ms: budgetMs = 500, max_batch: maxBatch = 4_000_000,
  }) => {
    const started = performance.now();
    needSelector(nextSelector, 'next_selector');
    needSelector(rowSelector, 'row_selector');
    positiveMs(waitMs);
    if (!Number.isInteger(pages) || pages < 1) throw new agent.PageError('invalid_params', 'pages must be a positive integer');
    const here = () => location.href;
    // A control hidden on the last page (display: none) counts as missing.
    const first = visibleNext(nextSelector);
    if (!first) return { outcome: 'end', reason: 'missing', url: here() };
    if (isDisabled(first)) return { outcome: 'end', reason: 'disabled', url: here() };
    const reading = Array.isArray(fields) && fields.length > 0;
    let left = Number.isInteger(limit) && limit >= 0 ? limit : null; // rows still wanted
    const read = () => {
      if (!reading) return null;
      const n = document.querySelectorAll(rowSelector).length;
      const value = agent.commands.extract({ selector: rowSelector, fields, limit: left, max_chars: maxChars, virtual, timeout_ms: waitMs });
      return { value, n: left === null ? n : Math.min(n, left) };
    };
    const got = await clickAndWait(first, rowSelector, waitMs, read);
    if (got.outcome === 'leaving') return { outcome: 'leaving', reason: null, url: here() };
    if (got.outcome === 'unchanged') return { outcome: 'end', reason: 'unchanged', url: here() };
    const moved = { outcome: 'redrawn', reason: null, url: here() };
    // A virtualised grid is read while it scrolls (a promise): that page alone.
    if (!reading || got.value.value instanceof Promise) return reading ? answer(moved, (await got.value.value).json, [], null) : moved;
    const page = got.value.value.json;
    const more = [];
    let size = page.length;
    if (left !== null) left -= got.value.n;
    let end = null;
    while (end === null) {
      const next = visibleNext(nextSelector);
      if (more.length + 1 >= pages) end = 'pages';
      else if (left !== null && left <= 0) end = 'limit';
      else if (performance.now() - started >= budgetMs) end = 'time';
      else if (size >= maxBatch) end = 'bytes';
      else if (!next) end = 'missing';
      else if (isDisabled(next)) end = 'disabled';
      else if (next.matches(LOADS)) end = 'navigates';
      else {
        const again = await clickAndWait(next, rowSelector, waitMs, read);
        if (again.outcome !== 'redrawn') end = again.outcome === 'leaving' ? 'navigates' : 'unchanged';
        else {
          const text = again.value.value instanceof Promise ? (await again.value.value).json : again.value.value.json;
          more.push(text);
          size += text.length;
          if (left !== null) left -= again.value.n;
        }
      }
    }
    return answer(moved, page, more, end);
  };

  /** The paginate answer with its pages' extract answers (JSON texts), as one JSON text. */
  function answer(moved, page, more, end) {
    const head = JSON.stringify({ ...moved, ...(end === null ? {} : { end }) }).slice(0, -1);
    return { json: `${head},"page":${page}${more.length ? `,"more":[${more.join(',')}]` : ''}}` };
  }

  agent.waitForDom = waitForDom; // page/scroll_load.js waits the same way
  agent.renderedFrame = renderedFrame;
})();
