// The end of a table's redraw in place (DataTables, Dash, AG Grid-like pagers), told with no idle
// wait: after the click a MutationObserver looks at the rows each time the DOM changes. When the same
// number of rows is back and the first and last rows' text changed, the rows are read in that very
// microtask, before the page's next task can touch them. Otherwise (a shorter last page, a first row
// that stays) they are read once they stayed the same over one turn of the event loop. Never read
// half drawn: no rows yet (a two-step redraw clears, then fills), rows that are loading placeholders
// (skeletons, a "Loading..." row), the table or an ancestor aria-busy, or a loading/processing
// overlay near the table shown after the click. Bounded by the caller's wait; no fixed sleep.
(() => {
  const agent = globalThis.__tabpilotAgent.use('redraw', {
    needs: ['isVisible'],
    provides: ['redraw'],
  });
  // Busy indicators a pager shows while it fetches the next page (DataTables' "processing" box, AG
  // Grid's loading overlay, spinners), looked for near the table only.
  const BUSY = '[aria-busy="true"], [role="progressbar"], [class*="processing" i], [class*="loading" i], [class*="spinner" i], [id*="processing" i], [id*="loading" i]';
  // Placeholder rows drawn before the data (skeleton screens).
  const SKELETON = '[class*="skeleton" i], [class*="shimmer" i], [class*="placeholder" i], [aria-busy="true"]';
  const PLACEHOLDER = /^\s*(loading|processing|please wait)\b[.…\s]*$/i;
  // The table's widget (where a pager puts its overlay): this many levels above the rows' parent.
  const WIDGET_LEVELS = 4;

  /** The rows now: the elements, their number and text, in order. */
  function rowState(selector) {
    const rows = document.querySelectorAll(selector);
    const texts = Array.from(rows, (r) => r.textContent);
    return { rows, n: rows.length, first: texts[0], last: texts[texts.length - 1], text: texts.join('\u0001') };
  }

  function widgetOf(rows) {
    let el = rows.length ? rows[0].parentElement : null;
    for (let i = 0; el && i < WIDGET_LEVELS && el.parentElement && el !== document.body; i += 1) el = el.parentElement;
    return el || document.body;
  }

  function busyShown(widget, rows) {
    const shown = new Set();
    if (!widget || !widget.isConnected) return shown;
    for (const el of widget.querySelectorAll(BUSY)) {
      if ([...rows].some((r) => r.contains(el))) continue; // rows are judged by `placeholder`
      if (agent.isVisible(el)) shown.add(el);
    }
    return shown;
  }

  /** Rows that stand in for data not there yet. */
  function placeholder(rows) {
    for (const row of rows) {
      if (row.matches(SKELETON) || row.querySelector(SKELETON)) return true;
    }
    return rows.length === 1 && PLACEHOLDER.test(rows[0].textContent);
  }

  /**
   * The rows of `selector` as they are before a click: pass it to `wait`. A busy indicator already
   * shown then belongs to the page, not to this redraw, and is not waited for.
   */
  function before(selector) {
    const now = rowState(selector);
    const widget = widgetOf(now.rows);
    return { ...now, widget, busy: busyShown(widget, now.rows) };
  }

  /**
   * Run `click`, then resolve with `{outcome: "redrawn", value: read()}` once the rows of `selector`
   * differ from `was` (from `before`) and are drawn whole, `{outcome: "unchanged"}` if they did not
   * change within `waitMs` (changed but still marked busy then: read as they are), or
   * `{outcome: "leaving", value: onLeave()}` when the document goes away. `read` runs synchronously at
   * the moment the redraw is seen complete; what it throws rejects.
   */
  function wait(selector, was, waitMs, click, read, onLeave) {
    return new Promise((resolve, reject) => {
      let done = false;
      let settling = false;
      let timer = null;
      const changed = (now) => now.n > 0 && (now.n !== was.n || now.text !== was.text);
      const busy = (now) => {
        if (placeholder(now.rows)) return true;
        const container = now.rows[0].parentElement;
        if (container && container.closest('[aria-busy="true"]')) return true;
        const widget = was.widget && was.widget.isConnected ? was.widget : widgetOf(now.rows);
        for (const el of busyShown(widget, now.rows)) if (!was.busy.has(el)) return true;
        return false;
      };
      const observer = new MutationObserver(() => check());
      const leave = () => finish(() => ({ outcome: 'leaving', value: onLeave() }));
      function finish(outcome) {
        if (done) return;
        done = true;
        observer.disconnect();
        clearTimeout(timer);
        removeEventListener('pagehide', leave);
        try {
          resolve(outcome());
        } catch (err) {
          reject(err);
        }
      }
      const redrawn = () => ({ outcome: 'redrawn', value: read() });
      function check() {
        if (done || settling) return;
        const now = rowState(selector);
        if (!changed(now) || busy(now)) return;
        // Every row replaced at once (a page's worth in one task): read now, in this microtask.
        if (now.n === was.n && now.first !== was.first && now.last !== was.last) {
          finish(redrawn);
          return;
        }
        settling = true;
        settle(now.text);
      }
      // A redraw over several tasks (rows filled a chunk at a time, a shorter last page) is read
      // once one turn went by without changing it.
      const settle = (key) => afterTurn(() => {
        if (done) return;
        const now = rowState(selector);
        if (!changed(now) || busy(now)) settling = false;
        else if (now.text === key) finish(redrawn);
        else settle(now.text);
      });
      observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['aria-busy', 'class', 'style', 'hidden'] });
      addEventListener('pagehide', leave);
      timer = setTimeout(() => finish(() => (changed(rowState(selector)) ? redrawn() : { outcome: 'unchanged' })), waitMs);
      click();
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

  agent.redraw = { before, wait };
})();
