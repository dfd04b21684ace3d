// How one interactive element reads in a snapshot: which elements are interactive, their names
// (aria-labelledby, aria-label, labels, text, placeholder), kinds, values and state, as one line
// `@e5 textbox "Email" = a@b.c`. page/snapshot.js walks the page and calls controlLine.
(() => {
  const agent = globalThis.__tabpilotAgent.use('controls', {
    needs: ['REDACTED', 'isSensitive', 'redactUrl', 'refOf'],
    provides: ['controls'],
  });
  if (agent.controls) return;

  const R = agent.REDACTED;
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
  // Page text is data: a ref inside a quoted name is written @ as \u0040 (the same string to a JSON
  // reader), so no `@e5` in a snapshot comes from the page.
  const REF_LIKE = /@e(?=\d)/g;
  const json = (v) => JSON.stringify(v).replace(REF_LIKE, '\\u0040e');
  const quote = (s, n = MAX_NAME) => json(cut(s, n));
  const plain = (s, n = MAX_VALUE) => {
    const v = cut(s, n);
    return v && v.trim() === v && !/["\n\r\[\]{}]|@e\d/.test(v) ? v : json(v);
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

  /** The name of a secret control: only what labels outside it say (its own attributes are its secret). */
  function outsideName(el) {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      const text = by.split(/\s+/).map((id) => root.getElementById?.(id) || el.ownerDocument.getElementById(id))
        .filter((l) => l && !l.contains(el)).map(plainText).join(' ');
      if (text) return text;
    }
    const labels = el.labels ? [...el.labels].map(plainText).filter(Boolean) : [];
    return labels.length ? labels.join(' ') : R;
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

  /** Where a link goes, as short as stays unambiguous: #frag on this page, a path on this origin. */
  function hrefOf(el, secret) {
    const raw = el.getAttribute('href');
    if (!raw || /^\s*javascript:/i.test(raw)) return '';
    const href = shortHref(el, raw).replace(REF_LIKE, '%40e');
    return secret ? agent.redactUrl(href) : href;
  }

  function shortHref(el, raw) {
    // el.href is already resolved by the browser: string work, no URL parsing per link.
    const href = typeof el.href === 'string' ? el.href : raw; // SVG links have an object here
    const here = el.ownerDocument.location;
    const page = here.origin + here.pathname + here.search;
    if (href.startsWith(`${page}#`)) return href.slice(page.length);
    if (href.startsWith(`${here.origin}/`)) return href.slice(here.origin.length);
    return href;
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

  /**
   * The line for an interactive element, and whether its children still need walking. `secret`: the
   * element is a secret or inside one (the walker knows): its own attributes, value and options are not shown.
   */
  function controlLine(el, tag, secret) {
    let kind;
    let name;
    let value = '';
    let leaf = true;
    const flags = stateFlags(el);
    if (tag === 'input' || tag === 'textarea') {
      kind = tag === 'textarea' ? 'textarea' : INPUT_KIND[el.type] || 'textbox';
      if (secret) name = kind === 'button' ? R : outsideName(el);
      else if (kind === 'button') name = ariaName(el) || el.value || el.alt || (el.type === 'reset' ? 'Reset' : 'Submit');
      else name = controlName(el);
      if (kind === 'checkbox' || kind === 'radio') {
        if (el.indeterminate || el.checked) flags.unshift(el.indeterminate ? '[-]' : '[x]');
      } else if (kind !== 'button' && kind !== 'file' && el.value) value = secret ? ` = ${R}` : ` = ${plain(el.value)}`;
    } else if (tag === 'select') {
      kind = el.multiple ? 'listbox' : 'select';
      name = secret ? outsideName(el) : controlName(el);
      if (secret) {
        // Its options are its values: none is shown, not even how many there are.
        const label = name ? ` ${quote(name)}` : '';
        return { line: `${agent.refOf(el)} ${kind}${label} = ${R}${flags.length ? ` ${flags.join(' ')}` : ''}`, leaf: true };
      }
      const chosen = [...el.selectedOptions].map((o) => norm(o.label || o.text));
      const opts = [...el.options].slice(0, MAX_OPTIONS).map((o) => {
        const t = norm(o.label || o.text);
        return /[,{}"]|@e\d/.test(t) ? json(t) : t;
      });
      if (el.options.length > MAX_OPTIONS) opts.push(`…+${el.options.length - MAX_OPTIONS}`);
      const shown = chosen.map((c) => (c.includes(',') ? quote(c) : plain(c, MAX_NAME))).join(',');
      value = `${shown ? ` = ${shown}` : ''} {${opts.join(',')}}`;
    } else if (tag === 'label') {
      // A label standing in for its hidden control (a styled checkbox): acting on it acts on the control.
      const c = el.control;
      kind = INPUT_KIND[c.type] || c.localName;
      name = plainText(el);
      if ((c.type === 'checkbox' || c.type === 'radio') && c.checked) flags.unshift('[x]');
    } else if (el.isContentEditable && el.hasAttribute('contenteditable')) {
      kind = 'editable';
      name = secret ? outsideName(el) : ariaName(el);
      const text = secret ? R : plainText(el);
      if (text) value = ` = ${text === R ? R : plain(text)}`;
    } else {
      const role = el.getAttribute('role');
      kind = tag === 'a' ? 'link' : tag === 'button' || tag === 'summary' ? 'button' : role && ROLES.has(role) ? role : 'clickable';
      leaf = el.firstElementChild === null || el.querySelector(INTERACTIVE) === null;
      name = secret ? R : leaf ? textName(el) : ariaName(el);
      if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
        flags.push(el.parentElement.open ? '[expanded]' : '[collapsed]');
      }
      if ((kind === 'slider' || kind === 'spinbutton') && el.hasAttribute('aria-valuenow')) value = ` = ${secret ? R : plain(el.getAttribute('aria-valuenow'))}`;
      if (tag === 'a') {
        const href = hrefOf(el, secret);
        if (href) value = ` ${href}`;
      }
    }
    const label = name ? ` ${quote(name)}` : '';
    const tail = flags.length ? ` ${flags.join(' ')}` : '';
    return { line: `${agent.refOf(el)} ${kind}${label}${value}${tail}`, leaf };
  }

  agent.controls = { INTERACTIVE, isInteractive, controlLine, ariaName, norm, quote, REF_LIKE };
})();
