// How the rest of a `suggest` candidate's list is read, for the extract call it proposes: a next
// control after the rows (a link, or a button that redraws in place), a numbered pager with no next
// control (the link after the current page's mark: Django admin's `.paginator .this-page + a`), a
// load-more button, a feed's loader or sentinel, or a virtualised grid's own scrolling viewport. A list
// shown from a later page than its first is read from its first (its page "1" link, or its first-page
// control): read from where the tab stands, it would end at the list's real end and call itself
// complete without the pages before.
(() => {
  const agent = globalThis.__tabpilotAgent.use('suggest_paging', {
    needs: ['isSensitive', 'isVisible', 'scrubText', 'suggestFields'],
    provides: ['suggestPaging'],
  });
  const NEXT_TEXT = /^(next|next page|older|older posts|weiter|nächste|nächste seite|suivant|siguiente|volgende|successivo|›|>|→|⟩|▶)$/i;
  // "»" is a next control on some pagers and the last page's link on others: named only when alone.
  const LAST_OR_NEXT = /^(»|>>)$/;
  const MORE_TEXT = /^(show more|load more|view more|see more|more|more results|show more results|load more results|mehr laden|mehr anzeigen|voir plus|ver más|cargar más)$/i;
  const NEXT_LABEL = /\bnext\b|weiter|nächste|suivant|siguiente|volgende/i;
  const PREV_WORDS = /^(prev|previous|previous page|newer|newer posts|zurück|vorherige|vorherige seite|précédent|anterior|vorige|precedente)$/i;
  const PREV_SIGNS = /^(‹|<|←|⟨|◀)$/;
  const FIRST_WORDS = /^(first|first page|erste|erste seite|première|primera|eerste|prima)$/i;
  // "«" leads to the first page where the pager has a previous control of its own, else to the previous.
  const FIRST_SIGNS = /^(«|<<|⏮|⇤)$/;
  const CONTROLS = 'a[href], button, [role=button], [role=link], input[type=submit], input[type=button]';
  const PAGER = '.pagination, .pager, .paging, .paginator, [class*="paginat"], nav[aria-label*="pag" i]';
  // A block after the rows that a feed shows while it loads, or watches to load (shown or not yet).
  const LOADER = /(^|[-_])(load|loader|loading|spinner|sentinel|infinite)([-_]|$)/i;
  const WATCHED = '[hx-trigger*="revealed"], [hx-trigger*="intersect"], [data-hx-trigger*="revealed"], [data-hx-trigger*="intersect"]';
  const STABLE_ID = /^[A-Za-z][\w-]*$/;
  const DEFAULT_PAGES = 50;
  const MAX_PAGES = 500;
  const FEED_SCROLLS = 50;
  const MAX_SCROLLS = 500;
  // Node.DOCUMENT_POSITION_FOLLOWING | CONTAINED_BY, as numbers: the file also loads where no DOM is.
  const FOLLOWS = 4 | 16;

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();
  const esc = (s) => CSS.escape(s);
  const textOf = (el) => normalise(el.localName === 'input' ? el.value || '' : el.textContent || '');

  /** Visible next-page and load-more controls, most likely first, each with what it is. */
  function controls() {
    const out = [];
    for (const el of document.querySelectorAll(CONTROLS)) {
      let score = 0;
      let more = false;
      if ((el.getAttribute('rel') || '').toLowerCase().split(/\s+/).includes('next')) score += 3;
      const label = normalise(el.getAttribute('aria-label') || el.getAttribute('title') || '');
      if (label && (NEXT_TEXT.test(label) || NEXT_LABEL.test(label))) score += 2;
      const raw = textOf(el);
      if (raw.length <= 40) {
        const bare = normalise(raw.replace(/[^\p{L}\s]/gu, ' '));
        if (NEXT_TEXT.test(raw) || (bare && NEXT_TEXT.test(bare))) score += 2;
        else if (LAST_OR_NEXT.test(raw)) score += 1;
        else if (MORE_TEXT.test(raw) || (bare && MORE_TEXT.test(bare))) [score, more] = [score + 2, true];
      }
      // An icon-only button named by its class (Dash DataTable's button.next-page).
      if ([...el.classList].some((c) => /(^|[-_])next([-_]|$)/i.test(c))) score += 2;
      if ([...el.classList].some((c) => /(^|[-_])(more|load-?more|view-?more)([-_]|$)/i.test(c))) [score, more] = [score + 1, true];
      if (score === 0 || agent.isSensitive(el) || !agent.isVisible(el)) continue;
      if (el.closest(PAGER)) score += 1;
      if (el.getAttribute('aria-disabled') === 'true' || el.disabled) score -= 1;
      out.push({ el, score, more });
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /** A selector for the control that survives page 2: rel, id, class, label, else its place in the
   * pager counted from the end (a pager's ends stay put while its page numbers shift). */
  function controlSelector(el, path) {
    const tag = el.localName;
    const tries = [];
    if ((el.getAttribute('rel') || '').toLowerCase().split(/\s+/).includes('next')) tries.push(`${tag}[rel~="next"]`);
    if (el.id && STABLE_ID.test(el.id)) tries.push(`#${esc(el.id)}`);
    for (const c of agent.suggestFields.stableClasses(el)) tries.push(`${tag}.${esc(c)}`);
    const label = el.getAttribute('aria-label');
    if (label) tries.push(`${tag}[aria-label="${label.replace(/["\\]/g, '\\$&')}"]`);
    const item = el.closest('li');
    if (item && item.parentElement) {
      const k = item.parentElement.children.length - Array.prototype.indexOf.call(item.parentElement.children, item);
      tries.push(`${path(item.parentElement)} > li:nth-last-child(${k}) ${tag}`);
    }
    for (const t of tries) if (document.querySelector(t) === el) return t;
    return path(el);
  }

  /** How many pages the pager near `el` says there are (its page numbers, "of 12", "1 / 10"), or 0. */
  function pagesShown(el) {
    let box = el;
    for (let i = 0; i < 4 && box.parentElement && box.parentElement !== document.body; i += 1) {
      box = box.parentElement;
      if (box.querySelectorAll('a, button').length >= 3 || box.matches(PAGER)) break;
    }
    const numbers = (normalise(box.textContent || '').match(/\d[\d,]*/g) || []).map((n) => Number(n.replace(/,/g, '')));
    return Math.max(0, ...numbers.filter((n) => n <= MAX_PAGES));
  }

  const pages = (el) => Math.min(MAX_PAGES, Math.max(DEFAULT_PAGES, pagesShown(el)));

  /** The link to the page after the current one in a numbered pager with no next control. */
  function numbered(c, path) {
    const marks = document.querySelectorAll('[aria-current=page], .this-page, .current, .active, .selected, strong, em, b, span');
    for (const mark of marks) {
      if (!(c.parent.compareDocumentPosition(mark) & FOLLOWS) || c.parent.contains(mark)) continue;
      const n = textOf(mark);
      if (!/^\d{1,4}$/.test(n) || !agent.isVisible(mark)) continue;
      const li = mark.parentElement.localName === 'li' && mark.parentElement.childElementCount === 1 ? mark.parentElement : null;
      const item = mark.localName === 'li' ? mark : li || mark;
      const linkIn = (sib) => sib && (sib.matches('a[href]') ? sib : sib.querySelector(':scope > a[href]'));
      const after = item.nextElementSibling;
      let link = linkIn(after);
      if (!link || textOf(link) !== String(Number(n) + 1)) {
        // The last page: its mark comes after the link to the page before, and nothing follows.
        const before = linkIn(item.previousElementSibling);
        if (link || !before || textOf(before) !== String(Number(n) - 1)) continue;
        link = null;
      }
      const sibling = after || item.previousElementSibling;
      const own = mark.hasAttribute('aria-current')
        ? `${mark.localName}[aria-current="page"]`
        : (Array.from(mark.classList).find((k) => /^(this-page|current|active|selected)$/i.test(k)) || '');
      const markSel = own.includes('[') ? own : own ? `${mark.localName}.${esc(own)}` : mark.localName;
      const container = path(item.parentElement);
      const selector = item === mark ? `${container} > ${markSel} + ${sibling.localName === 'a' ? 'a' : `${sibling.localName} > a`}` : `${container} > li:has(> ${markSel}) + li > a`;
      if (document.querySelector(selector) === link) return { selector, link: link || mark };
    }
    return null;
  }

  /** The rows' own scrolling box when it holds more rows than are drawn (a virtualised grid), or null. */
  function viewport(c) {
    for (let el = c.parent; el && el !== document.body && el !== document.documentElement; el = el.parentElement) {
      const y = getComputedStyle(el).overflowY;
      if (!/(auto|scroll|overlay)/.test(y) || el.clientHeight <= 0 || el.scrollHeight <= el.clientHeight + 4) continue;
      const drawn = c.members.reduce((sum, m) => sum + m.getBoundingClientRect().height, 0);
      const grid = c.parent.closest('[aria-rowcount]');
      const declared = grid ? Number(grid.getAttribute('aria-rowcount')) : 0;
      if (el.scrollHeight > drawn + el.clientHeight / 2 || declared > c.members.length + 1) return el;
      return null;
    }
    return null;
  }

  /** A loader, status block or sentinel a feed keeps after its rows (shown or not), or a watched row. */
  function feedSign(c) {
    if (c.parent.querySelector(WATCHED)) return 'a row that loads more when it comes into view';
    const loader = (el) => {
      const words = `${el.id} ${el.getAttribute('class') || ''}`;
      if (el.matches(WATCHED)) return true;
      if ((el.textContent || '').length > 200) return false;
      return words.split(/\s+/).some((w) => LOADER.test(w)) || el.matches('[role=status], [aria-busy=true]') || /^loading\b/i.test(textOf(el));
    };
    for (let box = c.members[c.members.length - 1], i = 0; box && box !== document.body && i < 4; box = box.parentElement, i += 1) {
      let sib = box.nextElementSibling;
      for (let k = 0; sib && k < 4; sib = sib.nextElementSibling, k += 1) {
        if (loader(sib)) return `a loader after the rows (${sib.localName}${sib.id ? `#${sib.id}` : ''}${sib.classList.length ? `.${[...sib.classList].join('.')}` : ''})`;
      }
    }
    return null;
  }

  /** Whether a pager control can be used now: a link with an address, a button not disabled. */
  function usable(el) {
    if (el.disabled || el.getAttribute('aria-disabled') === 'true' || el.classList.contains('disabled')) return false;
    const item = el.parentElement;
    if (item && item.localName === 'li' && item.classList.contains('disabled')) return false;
    return !el.matches('a') || /^(?!javascript:|#)./i.test(el.getAttribute('href') || '');
  }

  /** What a control after the rows does toward the list's start: 'first', 'prev', 'one' (the pager's
   * link to page 1), or null. */
  function backward(el) {
    const rel = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
    const raw = textOf(el);
    const bare = normalise(raw.replace(/[^\p{L}\s]/gu, ' '));
    const label = normalise(el.getAttribute('aria-label') || el.getAttribute('title') || '');
    const classes = [...el.classList].join(' ');
    if (rel.includes('first') || FIRST_WORDS.test(bare) || /\bfirst\b/i.test(label) || /(^|[-_\s])first([-_\s]|$)/i.test(classes)) return 'first';
    if (FIRST_SIGNS.test(raw)) return 'first?';
    if (rel.includes('prev') || PREV_WORDS.test(bare) || PREV_SIGNS.test(raw) || /\bprev(ious)?\b/i.test(label) || /(^|[-_\s])prev(ious)?([-_\s]|$)/i.test(classes)) return 'prev';
    if (raw === '1' && el.matches('a[href]')) {
      const pager = el.closest(PAGER) || el.parentElement.closest('nav, ul, ol, p, div, td, th');
      const numbers = pager ? [...pager.querySelectorAll('a, span, strong, em, b, li')].filter((n) => /^\d{1,4}$/.test(textOf(n))).length : 0;
      if (numbers >= 2) return 'one';
    }
    return null;
  }

  /** How to get to the list's first page from a later one: `{url}` (a link), `{selector}` (a button that
   * redraws in place), `{}` (the list starts before this page, but nothing here leads to its first);
   * null on the first page. */
  function start(c, path) {
    const found = { first: null, 'first?': null, prev: null, one: null };
    for (const el of document.querySelectorAll(CONTROLS)) {
      if (!(c.parent.compareDocumentPosition(el) & FOLLOWS) || agent.isSensitive(el) || !agent.isVisible(el)) continue;
      const what = backward(el);
      if (what && !found[what] && usable(el)) found[what] = el;
    }
    const first = found.one || found.first || (found.prev ? found['first?'] : null);
    const back = first || found.prev || found['first?'];
    if (!back) return null;
    if (!first) return {};
    if (first.matches('a[href]')) return { url: agent.scrubText(first.href) };
    return { selector: controlSelector(first, path) };
  }

  /** `{next_selector?, paging?: {kind, why, paginate? | scroll?}}` for candidate `c`. */
  function guess(c, path) {
    const out = {};
    const found = c.aside ? [] : controls().filter(({ el }) => c.parent.compareDocumentPosition(el) & FOLLOWS);
    const next = found.find((x) => !x.more) || found[0];
    if (next) out.next_selector = controlSelector(next.el, path);
    const box = c.aside ? null : viewport(c);
    if (box) {
      const steps = Math.ceil(box.scrollHeight / (box.clientHeight * 0.75)) + 5;
      out.paging = { kind: 'grid', why: `the rows scroll inside their own ${Math.round(box.clientHeight)} px viewport, which holds more than is drawn`, scroll: { max_scrolls: Math.min(MAX_SCROLLS, Math.max(20, steps)) } };
    } else if (next && !next.more) {
      const link = next.el.matches('a[href]') && !/^(javascript:|#)/i.test(next.el.getAttribute('href') || '');
      const what = link ? 'link' : 'button';
      out.paging = { kind: `next_${what}`, why: `a next ${what} after the rows`, paginate: { next_selector: out.next_selector, max_pages: pages(next.el) } };
    } else if (next && next.more) {
      out.paging = { kind: 'load_more', why: `a "${textOf(next.el).slice(0, 30)}" button after the rows`, scroll: { max_scrolls: FEED_SCROLLS } };
    } else if (!c.aside) {
      const pager = numbered(c, path);
      const sign = pager ? null : feedSign(c);
      if (pager) {
        out.next_selector = pager.selector;
        out.paging = { kind: 'numbered', why: 'a numbered pager with no next link: the link after the current page', paginate: { next_selector: pager.selector, max_pages: pages(pager.link) } };
      } else if (sign) {
        out.paging = { kind: 'feed', why: sign, scroll: { max_scrolls: FEED_SCROLLS } };
      }
    }
    const from = out.paging && out.paging.paginate ? start(c, path) : null;
    if (from) {
      out.paging.why += from.url || from.selector
        ? '; the tab shows a later page than the first: the call starts from the first page'
        : '; the tab shows a later page than the first, and nothing here leads to the first: open it, then ask again';
      if (from.url || from.selector) out.paging.first = from;
    }
    return out;
  }

  agent.suggestPaging = { guess };
})();
