// What a person sees on the page as lean text: one line per heading, text run, table row and
// interactive element, every interactive element named by a ref (`@e5`, page/refs.js). Lines:
//   # Heading            - list item            | cell | cell            [dialog "Name"] … [/dialog]
//   @e3 link "Next" /page/2     @e5 textbox "Email" = a@b.c     @e6 checkbox "Remember me" [x]
//   @e7 select "Size" = M {S,M,L}     @e8 button "Save" [disabled]     (unchecked boxes carry no mark)
// Values are quoted only when they need it (spaces at an end, quotes, brackets, line breaks).
// Hidden content (display:none, visibility:hidden, aria-hidden, inert, far off-screen) is skipped;
// shadow roots (open and closed: what they show is on the page) and same-origin frames are walked; secrets come out as [REDACTED].
// Page text is data: a text line starting like TabPilot's own markup (#, |, -, +, [, \) gets a
// backslash in front, a ref-like "@e5" in it is written "\@e5", a bar inside a table cell "\|".
(() => {
  const agent = globalThis.__tabpilotAgent.use('snapshot', {
    needs: ['PageError', 'REDACTED', 'controls', 'isSecretRoot', 'isSensitive', 'isVisible', 'maskPatterns', 'patternsHit', 'pruneRefs', 'query', 'sensitiveSelector', 'shadowRootOf'],
    provides: ['renderLines'],
  });
  if (agent.renderLines) return;

  const R = agent.REDACTED;
  const { isInteractive, controlLine, ariaName, norm, quote, REF_LIKE } = agent.controls;
  // Our own [REDACTED] mark inside a run of page text, swapped in after the text is escaped.
  const MARK = '\u0000';
  const LEAD = /^(?:[#|[\\]|[-+] )/;

  /** A line of page text, escaped so it cannot pass for a heading, row, ref or marker of ours. */
  function escapeText(text) {
    const lead = LEAD.test(text);
    const out = text.replace(REF_LIKE, '\\@e').replaceAll(MARK, R);
    return lead ? `\\${out}` : out;
  }
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'datalist', 'option', 'optgroup', 'canvas', 'param', 'source', 'track', 'area', 'map']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'img', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr', 'button', 'input', 'select', 'textarea']);
  const TABLE_PARTS = new Set(['tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'colgroup', 'col']);
  // Containers whose content reads as one line when it is short ("Read the @e3 link "docs" first").
  const JOIN = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt', 'dd', 'caption', 'figcaption', 'legend', 'label', 'td', 'th']);

  function headingLevel(el, tag) {
    if (tag.length === 2 && tag[0] === 'h' && tag[1] >= '1' && tag[1] <= '6') return Number(tag[1]);
    if (el.getAttribute('role') === 'heading') return Number(el.getAttribute('aria-level')) || 2;
    return 0;
  }

  /**
   * Walks one subtree into `lines`; `buf` collects the current run of inline text. A budget stops the
   * walk early (`cut`): once `chars` of lines are out, or past `deadline` (performance.now()), so a
   * page of 200,000 elements answers in time instead of stalling the tab until it is discarded.
   */
  class Walker {
    constructor(secretSelector, { chars = Infinity, deadline = Infinity } = {}) {
      this.lines = [];
      this.buf = '';
      this.secret = secretSelector;
      this.size = 0; // characters in `lines`, newlines included
      this.maxChars = chars;
      this.deadline = deadline;
      this.visits = 0;
      this.cut = null; // 'size' or 'time' once the budget stopped the walk
      this.skip = null; // elements this pass leaves out (another pass walks them)
    }

    over() {
      if (this.cut) return true;
      if (this.size >= this.maxChars) this.cut = 'size';
      // The clock is read every 64 elements: reading it costs more than visiting an element.
      else if ((++this.visits & 63) === 0 && performance.now() > this.deadline) this.cut = 'time';
      return this.cut !== null;
    }

    push(line) {
      this.lines.push(line);
      this.size += line.length + 1;
    }

    flush() {
      const raw = norm(this.buf);
      this.buf = '';
      if (!raw) return;
      if (raw.length <= 2 && !raw.includes(MARK) && !/[\p{L}\p{N}]/u.test(raw)) return; // separators like "|" or "·""
      const text = escapeText(raw);
      if (text === this.lines[this.lines.length - 1]) return;
      this.push(text);
    }

    emit(line) {
      this.flush();
      this.push(line);
    }

    /** Lines that `fn` produces, apart from the current output. */
    collect(fn) {
      const saved = [this.lines, this.buf, this.size];
      this.lines = [];
      this.buf = '';
      fn();
      this.flush();
      const got = this.lines;
      [this.lines, this.buf, this.size] = saved; // counted when the caller emits them
      return got;
    }

    children(node, secret, quiet) {
      let kids = node.childNodes;
      if (node.nodeType === 1) {
        const root = agent.shadowRootOf(node);
        if (root) kids = root.childNodes;
        else if (node.localName === 'slot') {
          const assigned = node.assignedNodes();
          if (assigned.length) kids = assigned;
        }
      }
      for (const child of kids) {
        if (child.nodeType === 3) {
          if (!quiet && !secret) this.buf += child.data;
        } else if (child.nodeType === 1) this.element(child, secret, quiet);
      }
    }

    element(el, secret, quiet) {
      if (this.over() || this.skip?.has(el)) return;
      const tag = el.localName;
      if (SKIP.has(tag) || el.getAttribute('aria-hidden') === 'true' || el.inert) return;
      if (tag === 'input' && el.type === 'hidden') return;
      // One check for the common case; only a failed one pays for telling the reasons apart.
      const shown = el.checkVisibility({ visibilityProperty: true });
      if (!shown && !el.checkVisibility()) {
        // display:contents has no box of its own but its children render.
        if (el.ownerDocument.defaultView.getComputedStyle(el).display === 'contents') this.children(el, secret, quiet);
        return;
      }
      // Content parked at negative page coordinates (off-screen templates, menus kept for later) is
      // hidden from a person. Pages park blocks, so inline elements and table parts skip the check: a
      // rect per element was half the cost of a snapshot.
      if (!INLINE.has(tag) && !TABLE_PARTS.has(tag)) {
        const win = el.ownerDocument.defaultView;
        const rect = el.getBoundingClientRect();
        if (rect.right + win.scrollX < 0 || rect.bottom + win.scrollY < 0) return;
      }
      const isSecretRoot = !secret && agent.isSecretRoot(el);
      if (isSecretRoot && shown && (el.textContent || '').trim() && !isInteractive(el, tag)) this.buf += ` ${MARK} `;
      secret = secret || isSecretRoot;

      if (shown && (isInteractive(el, tag) || (tag === 'label' && this.hiddenControl(el)))) {
        const { line, leaf } = controlLine(el, tag, secret);
        this.emit(line);
        if (leaf || tag === 'select') return;
        this.children(el, secret, quiet);
        this.flush();
        return;
      }
      if (!shown) {
        this.children(el, secret, true);
        return;
      }
      if (tag === 'br') return this.flush();
      if (tag === 'img') {
        if (el.alt && !secret && !quiet) this.buf += ` ${el.alt} `;
        return;
      }
      if (tag === 'svg') return;
      if (tag === 'iframe' || tag === 'frame') return this.frame(el, secret);
      if (tag === 'table' && this.table(el, secret)) return;
      const role = el.getAttribute('role');
      if ((tag === 'dialog' && el.open) || role === 'dialog' || role === 'alertdialog') {
        const name = ariaName(el); // else its heading, a line of its own, names it
        this.emit(`[dialog${name ? ` ${quote(name)}` : ''}]`);
        this.children(el, secret, quiet);
        return this.emit('[/dialog]');
      }
      // A label's words already name its control's line.
      const hush = quiet || (tag === 'label' && el.control != null);
      const level = headingLevel(el, tag);
      if (level || JOIN.has(tag)) {
        const lines = this.collect(() => this.children(el, secret, hush));
        if (!lines.length) return;
        const prefix = level ? `${'#'.repeat(level)} ` : tag === 'li' ? '- ' : '';
        const joined = lines.join(' ');
        if (lines.length <= 8 && joined.length <= 300) this.emit(prefix + joined);
        else {
          this.emit(prefix + lines[0]);
          for (const l of lines.slice(1)) this.push(l);
        }
        return;
      }
      const block = !INLINE.has(tag);
      if (block) this.flush();
      this.children(el, secret, hush);
      if (block) this.flush();
    }

    hiddenControl(label) {
      const c = label.control;
      return c != null && c.localName === 'input' && (c.type === 'checkbox' || c.type === 'radio') && !agent.isVisible(c);
    }

    frame(el, secret) {
      let doc = null;
      try {
        doc = el.contentDocument;
      } catch {
        doc = null;
      }
      const name = el.getAttribute('title') || el.getAttribute('name') || '';
      if (!doc || !doc.body) {
        let where = el.getAttribute('src') || '';
        try {
          where = new URL(where, el.baseURI).origin;
        } catch { /* keep the raw src */ }
        return this.emit(`[frame${name ? ` ${quote(name)}` : ''} cross-origin ${where}: not readable]`);
      }
      this.emit(`[frame${name ? ` ${quote(name)}` : ''}]`);
      this.element(doc.body, secret, false);
      this.emit('[/frame]');
    }

    /** A grid of two or more columns as `| a | b` rows; false for layout tables of one column. */
    table(el, secret) {
      const rows = [...el.rows];
      if (!rows.some((r) => r.cells.length >= 2)) return false;
      this.flush();
      if (el.caption) this.element(el.caption, secret, false);
      for (const row of rows) {
        if (this.over()) break;
        if (!row.checkVisibility()) continue;
        // Rows and cells are walked here, not by element(): their own secret marks are checked here.
        const rowSecret = secret || agent.isSecretRoot(row) || (row.parentElement !== el && agent.isSecretRoot(row.parentElement));
        const cells = [...row.cells].map((cell) => {
          if (!cell.checkVisibility()) return '';
          const cellSecret = rowSecret || agent.isSecretRoot(cell);
          const text = this.collect(() => this.children(cell, cellSecret, false)).join(' ');
          if (cellSecret && !text && (cell.textContent || '').trim()) return R;
          return text.replaceAll('|', '\\|');
        });
        if (cells.some(Boolean)) this.push(`| ${cells.join(' | ')}`.trimEnd());
      }
      return true;
    }
  }

  // Where a page keeps its navigation, masthead and footer, when it marks no main region.
  const CHROME = 'nav, aside, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search]';
  const REST = '[rest of the page]';

  /** The walk's passes for main-first order: the main region, then the rest under a `[rest of the page]`
   * line. The main region is `main` (or role=main) when the page marks one, else all but its chrome. */
  function mainFirst(root) {
    const main = [...root.querySelectorAll('main, [role=main]')].find((el) => el.checkVisibility());
    if (main) return [{ roots: [main], skip: new Set() }, { roots: [root], skip: new Set([main]) }];
    const chrome = [...root.querySelectorAll(CHROME)].filter(
      (el) => !el.parentElement?.closest(`${CHROME}, article`),
    );
    if (!chrome.length) return [{ roots: [root], skip: null }];
    return [{ roots: [root], skip: new Set(chrome) }, { roots: chrome, skip: null }];
  }

  /** Every line of the page (or of `scope`), in document order (or its main content first, with
   * `main`); with a `budget` ({chars, deadline}), the lines until it ran out, and `budget.cut` says why
   * it did ('size' or 'time'). */
  agent.renderLines = (scope, budget = {}, main = false) => {
    let root = document.body || document.documentElement;
    if (scope) {
      root = agent.query(scope);
      if (!root) throw new agent.PageError('element_not_found', `no element matches the scope ${JSON.stringify(scope)}`, { selector: scope });
    }
    agent.pruneRefs();
    const walker = new Walker(agent.sensitiveSelector(), budget);
    const passes = main ? mainFirst(root) : [{ roots: [root], skip: null }];
    passes.forEach(({ roots, skip }, i) => {
      if (i > 0 && walker.lines.length && !walker.over()) walker.push(REST);
      walker.skip = skip;
      for (const el of roots) {
        // A scope inside a secret is a secret too.
        const secret = agent.isSensitive(el);
        if (secret && el.nodeType === 1 && (el.textContent || '').trim() && !isInteractive(el, el.localName)) walker.push(R);
        walker.element(el, secret, false);
        walker.flush();
      }
    });
    budget.cut = walker.cut;
    // Secret-shaped text is masked over the whole text at once: a key block may span lines.
    const all = walker.lines.join('\n');
    return agent.patternsHit(all) ? agent.maskPatterns(all).split('\n') : walker.lines;
  };

})();
