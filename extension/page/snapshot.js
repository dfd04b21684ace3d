// What a person sees on the page as lean text: one line per heading, text run, table row and
// interactive element, every interactive element named by a ref (`@e5`, page/refs.js). Lines:
//   # Heading            - list item            | cell | cell            [dialog "Name"] … [/dialog]
//   @e3 link "Next" /page/2     @e5 textbox "Email" = a@b.c     @e6 checkbox "Remember me" [x]
//   @e7 select "Size" = M {S,M,L}     @e8 button "Save" [disabled]     (unchecked boxes carry no mark)
// Values are quoted only when they need it (spaces at an end, quotes, brackets, line breaks).
// Hidden content (display:none, visibility:hidden, aria-hidden, inert, far off-screen) is skipped;
// open shadow roots and same-origin frames are walked; secrets come out as [REDACTED].
(() => {
  const agent = globalThis.__tabpilotAgent;
  if (agent.renderLines) return;

  const R = agent.REDACTED;
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'datalist', 'option', 'optgroup', 'canvas', 'param', 'source', 'track', 'area', 'map']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'img', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr', 'button', 'input', 'select', 'textarea']);
  // Containers whose content reads as one line when it is short ("Read the @e3 link "docs" first").
  const JOIN = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt', 'dd', 'caption', 'figcaption', 'legend', 'label', 'td', 'th']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'gridcell']);
  const INPUT_KIND = {
    email: 'email', password: 'password', number: 'number', date: 'date', time: 'time', 'datetime-local': 'datetime-local',
    month: 'month', week: 'week', color: 'color', range: 'slider', file: 'file', checkbox: 'checkbox', radio: 'radio',
    submit: 'button', button: 'button', reset: 'button', image: 'button',
  };
  const INTERACTIVE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[onclick],[contenteditable],[tabindex]:not([tabindex="-1"]),'
    + [...ROLES].map((r) => `[role=${r}]`).join(',');
  const MAX_NAME = 80;
  const MAX_VALUE = 100;
  const MAX_OPTIONS = 25;

  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const quote = (s, n = MAX_NAME) => JSON.stringify(cut(s, n));
  const plain = (s, n = MAX_VALUE) => {
    const v = cut(s, n);
    return v && v.trim() === v && !/["\n\r\[\]{}]/.test(v) ? v : JSON.stringify(v);
  };

  function isInteractive(el, tag) {
    switch (tag) {
      case 'a': return el.hasAttribute('href');
      case 'button': case 'select': case 'textarea': case 'summary': return true;
      case 'input': return el.type !== 'hidden';
      default: break;
    }
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    if (el.hasAttribute('onclick')) return true;
    if (el.hasAttribute('contenteditable') && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    return el.hasAttribute('tabindex') && el.tabIndex >= 0;
  }

  /** Text of `el` for a name: labels minus the controls inside them, secrets redacted. */
  function plainText(el) {
    if (agent.isSensitive(el)) return R;
    let s = '';
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) s += c.data;
        else if (c.nodeType === 1) {
          const t = c.localName;
          if (t === 'input' || t === 'select' || t === 'textarea' || t === 'script' || t === 'style') continue;
          if (t === 'img' && c.alt) s += ` ${c.alt} `;
          else if (agent.isSensitive(c)) s += ` ${R} `;
          else walk(c);
        }
      }
    };
    walk(el);
    return norm(s);
  }

  function ariaName(el) {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      const text = by.split(/\s+/).map((id) => root.getElementById?.(id) || el.ownerDocument.getElementById(id))
        .filter(Boolean).map(plainText).join(' ');
      if (text) return text;
    }
    return norm(el.getAttribute('aria-label') || '');
  }

  function controlName(el) {
    const aria = ariaName(el);
    if (aria) return aria;
    const labels = el.labels ? [...el.labels].map(plainText).filter(Boolean) : [];
    if (labels.length) return labels.join(' ');
    return norm(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name') || '');
  }

  function textName(el) {
    const aria = ariaName(el);
    if (aria) return aria;
    const text = plainText(el);
    return text || norm(el.getAttribute('title') || '');
  }

  function hrefOf(el) {
    const raw = el.getAttribute('href');
    if (!raw || /^\s*javascript:/i.test(raw)) return '';
    let url;
    try {
      url = new URL(raw, el.baseURI);
    } catch {
      return raw;
    }
    const here = el.ownerDocument.location;
    if (url.origin !== here.origin) return url.href;
    if (url.pathname === here.pathname && url.search === here.search && url.hash) return url.hash;
    return url.pathname + url.search + url.hash;
  }

  const stateFlags = (el) => {
    const f = [];
    const checked = el.getAttribute('aria-checked');
    if (checked === 'true' || checked === 'mixed') f.push(checked === 'true' ? '[x]' : '[-]');
    if (el.getAttribute('aria-selected') === 'true') f.push('[selected]');
    if (el.getAttribute('aria-pressed') === 'true') f.push('[pressed]');
    const expanded = el.getAttribute('aria-expanded');
    if (expanded) f.push(expanded === 'true' ? '[expanded]' : '[collapsed]');
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') f.push('[disabled]');
    if (el.readOnly && !el.disabled) f.push('[readonly]');
    return f;
  };

  /** The line for an interactive element, and whether its children still need walking. */
  function controlLine(el, tag, secret) {
    let kind;
    let name;
    let value = '';
    let leaf = true;
    const flags = stateFlags(el);
    if (tag === 'input' || tag === 'textarea') {
      kind = tag === 'textarea' ? 'textarea' : INPUT_KIND[el.type] || 'textbox';
      if (kind === 'button') name = ariaName(el) || el.value || el.alt || (el.type === 'reset' ? 'Reset' : 'Submit');
      else name = controlName(el);
      if (kind === 'checkbox' || kind === 'radio') {
        if (el.indeterminate || el.checked) flags.unshift(el.indeterminate ? '[-]' : '[x]');
      } else if (kind !== 'button' && kind !== 'file' && el.value) value = secret || agent.isSensitive(el) ? ` = ${R}` : ` = ${plain(el.value)}`;
    } else if (tag === 'select') {
      kind = el.multiple ? 'listbox' : 'select';
      name = controlName(el);
      const chosen = [...el.selectedOptions].map((o) => norm(o.label || o.text));
      const opts = [...el.options].slice(0, MAX_OPTIONS).map((o) => {
        const t = norm(o.label || o.text);
        return /[,{}"]/.test(t) ? JSON.stringify(t) : t;
      });
      if (el.options.length > MAX_OPTIONS) opts.push(`…+${el.options.length - MAX_OPTIONS}`);
      const shown = secret || agent.isSensitive(el) ? R : chosen.map((c) => (c.includes(',') ? quote(c) : plain(c, MAX_NAME))).join(',');
      value = `${shown ? ` = ${shown}` : ''} {${opts.join(',')}}`;
    } else if (tag === 'label') {
      // A label standing in for its hidden control (a styled checkbox): acting on it acts on the control.
      const c = el.control;
      kind = INPUT_KIND[c.type] || c.localName;
      name = plainText(el);
      if ((c.type === 'checkbox' || c.type === 'radio') && c.checked) flags.unshift('[x]');
    } else if (el.isContentEditable && el.hasAttribute('contenteditable')) {
      kind = 'editable';
      name = ariaName(el);
      const text = secret ? R : plainText(el);
      if (text) value = ` = ${text === R ? R : plain(text)}`;
    } else {
      const role = el.getAttribute('role');
      kind = tag === 'a' ? 'link' : tag === 'button' || tag === 'summary' ? 'button' : role && ROLES.has(role) ? role : 'clickable';
      leaf = el.querySelector(INTERACTIVE) === null;
      name = leaf ? (secret ? R : textName(el)) : ariaName(el);
      if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
        flags.push(el.parentElement.open ? '[expanded]' : '[collapsed]');
      }
      if ((kind === 'slider' || kind === 'spinbutton') && el.hasAttribute('aria-valuenow')) value = ` = ${el.getAttribute('aria-valuenow')}`;
      if (tag === 'a') {
        const href = hrefOf(el);
        if (href) value = ` ${href}`;
      }
    }
    const label = name ? ` ${quote(name)}` : '';
    const tail = flags.length ? ` ${flags.join(' ')}` : '';
    return { line: `${agent.refOf(el)} ${kind}${label}${value}${tail}`, leaf };
  }

  function headingLevel(el, tag) {
    if (tag.length === 2 && tag[0] === 'h' && tag[1] >= '1' && tag[1] <= '6') return Number(tag[1]);
    if (el.getAttribute('role') === 'heading') return Number(el.getAttribute('aria-level')) || 2;
    return 0;
  }

  /** Walks one subtree into `lines`; `buf` collects the current run of inline text. */
  class Walker {
    constructor(secretSelector) {
      this.lines = [];
      this.buf = '';
      this.secret = secretSelector;
    }

    flush() {
      const text = norm(this.buf);
      this.buf = '';
      if (!text || text === this.lines[this.lines.length - 1]) return;
      if (text.length <= 2 && !/[\p{L}\p{N}]/u.test(text)) return; // separators like "|" or "·"
      this.lines.push(text);
    }

    emit(line) {
      this.flush();
      this.lines.push(line);
    }

    /** Lines that `fn` produces, apart from the current output. */
    collect(fn) {
      const saved = [this.lines, this.buf];
      this.lines = [];
      this.buf = '';
      fn();
      this.flush();
      const got = this.lines;
      [this.lines, this.buf] = saved;
      return got;
    }

    children(node, secret, quiet) {
      let kids = node.childNodes;
      if (node.nodeType === 1) {
        if (node.shadowRoot) kids = node.shadowRoot.childNodes;
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
      const win = el.ownerDocument.defaultView;
      const rect = el.getBoundingClientRect();
      if (rect.right + win.scrollX < 0 || rect.bottom + win.scrollY < 0) return; // parked off-screen
      const isSecretRoot = !secret && el.matches(this.secret);
      if (isSecretRoot && shown && (el.textContent || '').trim() && !isInteractive(el, tag)) this.buf += ` ${R} `;
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
          for (const l of lines.slice(1)) this.lines.push(l);
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
        if (!row.checkVisibility()) continue;
        const cells = [...row.cells].map((cell) => (cell.checkVisibility()
          ? this.collect(() => this.children(cell, secret, false)).join(' ') : ''));
        if (cells.some(Boolean)) this.lines.push(`| ${cells.join(' | ')}`.trimEnd());
      }
      return true;
    }
  }

  /** Every line of the page (or of `scope`), in document order. */
  agent.renderLines = (scope) => {
    let root = document.body || document.documentElement;
    if (scope) {
      root = agent.query(scope);
      if (!root) throw new agent.PageError('element_not_found', `no element matches the scope ${JSON.stringify(scope)}`, { selector: scope });
    }
    agent.pruneRefs();
    const walker = new Walker(agent.sensitiveSelector());
    walker.element(root, false, false);
    walker.flush();
    return walker.lines;
  };

  agent.INTERACTIVE = INTERACTIVE;
})();
