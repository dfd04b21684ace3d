// Whether a list visibly goes on past what was read: a numbered pager with a page past the current
// one, a next link, a load-more button, a grid that declares more rows than it shows. The host needs
// it twice: when next_selector finds no control (the last page, or a selector that misses the next
// control?), and after a one-page extract (metadata.more: the option that would read the rest).
// Looked for once a walk, or around the rows only: a few hundred elements at most.
(() => {
  const agent = globalThis.__tabpilotAgent.use('onward', {
    needs: ['isDisabledControl', 'isVisible'],
    provides: ['pagerPosition', 'listGoesOn'],
  });
  const NUMBER = /^\d{1,6}$/;
  const NEXT_WORDS = /^(next|next page|older posts|older|[›»→]|next\s*[›»→>])$/i;
  const MORE_WORDS = /^(load|show|view|see) more\b/i;
  const CURRENT = '[aria-current="page"], [aria-current="true"], .current, .active, .this-page, .selected';
  const CONTROLS = 'a[href], button, [role="button"], [role="link"]';
  const SCAN_MAX = 3000; // controls looked at, at most
  const UP = 4; // how far above the rows their pager or load-more control is looked for

  const words = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim();
  const simple = (name) => /^[A-Za-z_][\w-]*$/.test(name);

  /** A short selector for `el` that the page's document resolves to it, or null. */
  function selectorFor(el) {
    const doc = el.ownerDocument;
    const tag = el.localName;
    const unique = (sel) => {
      try {
        return doc.querySelector(sel) === el ? sel : null;
      } catch {
        return null;
      }
    };
    if (el.id && simple(el.id) && unique(`#${el.id}`)) return `#${el.id}`;
    if ((el.getAttribute('rel') || '').split(/\s+/).includes('next')) return unique(`${tag}[rel~="next"]`) || `${tag}[rel~="next"]`;
    const label = el.getAttribute('aria-label');
    if (label && !/["\\]/.test(label) && unique(`${tag}[aria-label="${label}"]`)) return `${tag}[aria-label="${label}"]`;
    for (const c of el.classList) if (simple(c) && unique(`${tag}.${c}`)) return `${tag}.${c}`;
    return null;
  }

  /** `mark + tail`: the control right after the current page's mark (Django's `.this-page + a`,
   * Bootstrap's `li.active + li a`), where the mark is the current page's element or the box holding it. */
  function afterCurrent(current, link) {
    const mark = (el) => {
      if (el.getAttribute('aria-current')) return `${el.localName}[aria-current]`;
      const c = [...el.classList].find((k) => simple(k) && /current|active|this-page|selected/i.test(k));
      return c ? `${el.localName}.${c}` : null;
    };
    let tail = link.localName;
    for (let at = link, up = 0; at && up < 3; at = at.parentElement, up += 1) {
      if (at !== link) tail = `${at.localName} ${tail}`;
      const before = at.previousElementSibling;
      if (!before || !(before === current || before.contains(current))) continue;
      const inner = before === current ? null : mark(current);
      const m = mark(before) || (inner ? `${before.localName}:has(${inner})` : null);
      return m ? `${m} + ${tail}` : null;
    }
    return null;
  }

  /**
   * The controls under `root` (not inside a row of `rows`): {current, last, onward, kind} where
   * current/last are the numbered pager's current and highest page, onward a selector for the control
   * that leads past the current page (a numbered link past it, rel=next, a link reading "next"), and
   * kind what that control is (pager | next_link | load_more).
   */
  function scan(root, live, rows = null) {
    const shown = (el) => (live ? agent.isVisible(el) : !el.closest('[hidden]'));
    const inRow = (el) => {
      if (!rows) return false;
      for (let e = el; e && e !== root; e = e.parentElement) if (rows.has(e)) return true;
      return false;
    };
    const numbered = [];
    let next = null;
    let more = null;
    let seen = 0;
    for (const el of root.querySelectorAll(CONTROLS)) {
      if ((seen += 1) > SCAN_MAX) break;
      // The words first: looking at layout (visibility) is the costly part, and few controls qualify.
      const text = words(el);
      const isNumber = NUMBER.test(text) && el.matches('a[href], button');
      const isNext = !isNumber && !next && ((el.getAttribute('rel') || '').split(/\s+/).includes('next') || NEXT_WORDS.test(text) || /^next\b/i.test(el.getAttribute('aria-label') || ''));
      const isMore = !isNumber && !isNext && !more && MORE_WORDS.test(text);
      if (!(isNumber || isNext || isMore) || inRow(el) || !shown(el) || agent.isDisabledControl(el)) continue;
      if (isNumber) numbered.push({ el, n: Number(text) });
      else if (isNext) next = el;
      else more = el;
    }
    let current = null;
    for (const el of root.querySelectorAll(CURRENT)) {
      const text = words(el);
      if (NUMBER.test(text) && !inRow(el) && shown(el)) {
        current = { el, n: Number(text) };
        break;
      }
    }
    // A page number shown beside the numbered links but not linked (a span among the links).
    if (!current) {
      for (const { el } of numbered) {
        const box = el.parentElement && el.parentElement.parentElement;
        const plain = box && [...box.querySelectorAll('span, em, strong, b')].find((s) => NUMBER.test(words(s)) && !s.closest(CONTROLS));
        if (plain) {
          current = { el: plain, n: Number(words(plain)) };
          break;
        }
      }
    }
    const out = { current: null, last: null, onward: null, kind: null };
    // The pager is the current page's nearest box that holds numbered links (not a number in a table).
    let box = current ? current.el.parentElement : null;
    for (let up = 0; box && up < 3 && !numbered.some((x) => box.contains(x.el)); up += 1) box = box.parentElement;
    const pager = box ? numbered.filter((x) => box.contains(x.el)) : [];
    if (current && pager.length) {
      out.current = current.n;
      out.last = Math.max(current.n, ...pager.map((x) => x.n));
      const past = pager.filter((x) => x.n > current.n).sort((a, b) => a.n - b.n)[0];
      if (past) {
        out.onward = selectorFor(past.el) || afterCurrent(current.el, past.el);
        out.kind = 'pager';
      }
    }
    if (!out.kind && next) {
      out.onward = selectorFor(next);
      out.kind = 'next_link';
    }
    if (!out.kind && more) {
      out.onward = selectorFor(more);
      out.kind = 'load_more';
    }
    return out;
  }

  /** Where the document's numbered pager stands, for a next control that is missing or disabled:
   * {current?, last?, onward?} (the NextTarget fields). */
  agent.pagerPosition = (doc, live = true) => {
    if (!doc.body) return {};
    const { current, last, onward, kind } = scan(doc.body, live);
    const out = {};
    if (current !== null) Object.assign(out, { current, last });
    if (kind && onward) out.onward = onward;
    return out;
  };

  /** Whether the list of `matched` rows visibly goes on: {seen, selector?, rows?} (ListMore), or null. */
  agent.listGoesOn = (matched) => {
    if (!matched.length) return null;
    const lastRow = matched[matched.length - 1];
    const grid = lastRow.closest('[aria-rowcount]');
    if (grid) {
      const declared = Number(grid.getAttribute('aria-rowcount'));
      const drawn = grid.querySelectorAll('[role="row"], tr').length;
      if (Number.isInteger(declared) && declared > drawn) return { seen: 'grid_rows', rows: declared };
    }
    let root = lastRow.parentElement;
    for (let up = 0; root && up < UP && root.parentElement && root.parentElement.localName !== 'html'; up += 1) root = root.parentElement;
    if (!root) return null;
    const { onward, kind } = scan(root, true, new Set(matched));
    if (!kind) return null;
    return onward ? { seen: kind, selector: onward } : { seen: kind };
  };
})();
