// Redaction inside the page, the one set of rules every channel uses (snapshot, markdown, extract,
// suggest, skeleton, errors, wait_for, selectors, screenshot masks; free text: page/redact_scrub.js).
// A secret is an element matching the configured selectors (default: [data-sensitive], [data-private],
// .sensitive) or a password input, and everything inside it, across shadow roots and same-origin frames.
// Only values and text become "[REDACTED]": structural attributes (class, maxlength...) stay, a link keeps
// its path. This file (with core.js, patterns.js and redact_scrub.js) is in every document of the allowed
// sites from document_start while the pilot is on (worker/lib/guard.js), before any page script runs: a
// secret once stays one in that document. Elements that matched, fields' names and ids (a new input in its
// place is one too) and every value a secret held (page/patterns.js: a copy is masked wherever it shows).
(() => {
  const agent = globalThis.__tabpilotAgent.use('redact', {
    needs: ['parentAgent', 'maskPatterns', 'maskedTextOf', 'rememberValue'],
    provides: ['REDACTED', 'secretsSeen', 'onShadowRoot', 'watchRoots', 'shadowRootOf', 'treesOf', 'setRedaction', 'sensitiveSelector', 'markSecret', 'isSecretRoot', 'isSensitive', 'hasSensitive', 'secretRoots', 'redactedText', 'redactUrl', 'redactedHtml', 'redactedAttr', 'redactedValue', 'structural'],
  });
  if (agent.REDACTED) return;
  const REDACTED = '[REDACTED]';
  // A password is a secret whatever the user's list says; so is a text field that says it holds one
  // by its autocomplete, name or id (a page that was shown before this file arrived).
  const INTRINSIC = [
    'input[type=password]', 'input[autocomplete~=current-password]', 'input[autocomplete~=new-password]',
    'input:is(:not([type]), [type=text i]):is([name*=passw i], [name*=pwd i], [id*=passw i], [id*=pwd i])',
  ];
  const DEFAULT = [...INTRINSIC, '[data-sensitive]', '[data-private]', '.sensitive'];
  // Attributes that describe a secret element without holding its value: they stay as they are.
  const STRUCTURAL = new Set([
    'class', 'id', 'type', 'name', 'style', 'role', 'for', 'autocomplete', 'hidden', 'tabindex', 'maxlength',
    'minlength', 'size', 'rows', 'cols', 'disabled', 'readonly', 'required', 'multiple', 'checked', 'selected',
    'data-sensitive', 'data-private', 'width', 'height', 'lang', 'dir', 'target', 'rel', 'inputmode', 'spellcheck',
    'colspan', 'rowspan', 'scope', 'headers', 'method', 'autofocus', 'draggable', 'contenteditable',
  ]);
  const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction']);
  let userList = DEFAULT.slice(INTRINSIC.length);
  // Names and ids of fields that were secret: a field the page puts in their place is one too.
  const names = new Set();
  let sticky = [];
  let joined = '';
  // Elements that were secret once, whatever the page changed since (type, class, attributes).
  const once = new WeakSet();
  const onceLive = new Set(); // the same, while in a document (containment tests need a list)
  let seen = 0; // this document's elements ever secret (a script may take one away as it makes one)
  agent.secretsSeen = () => seen;

  agent.REDACTED = REDACTED;
  agent.structural = STRUCTURAL;

  const validSelector = (s) => { try { document.createDocumentFragment().querySelector(s); return true; } catch { return false; } };

  // Whether the user's list looks past an element itself (`.vault b`): then an ancestor's change counts.
  let looksUp = false;
  const rebuild = () => {
    joined = [...INTRINSIC, ...userList, ...sticky].join(',');
    looksUp = userList.some((sel) => /[\s>~+]/.test(sel.replace(/\[[^\]]*\]|\([^)]*\)/g, '').trim()));
  };
  rebuild();

  const FIELDS = new Set(['input', 'textarea', 'select']);
  const lastValue = new WeakMap(); // a secret field -> its value when last remembered

  /** Remember `el` as secret from now on in this document, with its field name, id and value. */
  const remember = (el) => {
    if (!once.has(el)) {
      once.add(el);
      onceLive.add(el);
      if (el.ownerDocument === document) seen += 1; // not a fetched page's parsed copy
    }
    if (FIELDS.has(el.localName)) {
      let grew = false;
      for (const [attr, key] of [['name', el.getAttribute('name')], ['id', el.id]]) {
        if (!key || names.has(`${attr}=${key}`)) continue;
        names.add(`${attr}=${key}`);
        const sel = attr === 'id' ? `:is(input, textarea, select)#${CSS.escape(key)}` : `:is(input, textarea, select)[name="${CSS.escape(key)}"]`;
        sticky.push(sel);
        grew = true;
      }
      if (grew) rebuild();
      agent.rememberValue(el.value, lastValue.get(el) ?? null);
      lastValue.set(el, el.value);
    } else {
      agent.rememberValue(el.textContent);
      if (el.firstElementChild) for (const f of el.querySelectorAll('input, textarea, select')) inner(f);
    }
  };

  /** Remember every secret in `node`'s subtree (an element just added, or a whole document). */
  const scan = (node) => {
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    if (node.nodeType === 1 && node.matches(joined)) remember(node);
    // Out of the tree, a template's secrets are remembered: a copy a script unmarks before inserting it shows none.
    for (const t of node.localName === 'template' ? [node] : node.querySelectorAll('template')) scan(t.content);
    if (!node.firstElementChild) return;
    for (const el of node.querySelectorAll(joined)) remember(el);
    // A <select> showing a secret option shows the secret (a selector cannot say so: :has does not nest).
    for (const sel of node.querySelectorAll('select')) {
      if (!once.has(sel) && [...sel.selectedOptions].some((o) => o.matches(joined))) remember(sel);
    }
  };

  /** Values of remembered elements in `node`'s subtree (it is leaving the document). */
  const leaving = (node) => {
    if (node.nodeType !== 1) return;
    const els = node.firstElementChild ? [node, ...node.querySelectorAll('*')] : [node];
    for (const el of els) if (once.has(el) || el.matches(joined)) remember(el);
  };

  /** Remember the value of `field`, inside a secret though not one itself (and `before`, its value attribute's). */
  const inner = (field, before = null) => {
    agent.rememberValue(field.value);
    if (before) agent.rememberValue(before);
  };

  // An element a script made and renamed in one go (inserted as a secret, then its class or marker
  // taken off before this observer's callback ran) shows only as it is now; the record keeps what the
  // attribute was, so it is judged as it was too, on a copy made in a document of its own.
  let scratchDoc = null;
  const scratch = () => (scratchDoc ??= document.implementation.createHTMLDocument(''));
  const WIDE_MAX = 2_000; // elements copied at most to judge an ancestor's change
  const copyOf = (el) => {
    const c = scratch().createElementNS(el.namespaceURI, el.localName);
    for (const a of el.attributes) c.setAttribute(a.name, a.value);
    return c;
  };
  /** The elements of `t`'s tree that matched the list while attribute `name` was `old`. */
  const matchedBefore = (t, name, old) => {
    const wide = looksUp && t.getElementsByTagName('*').length < WIDE_MAX;
    const copy = wide ? scratch().importNode(t, true) : copyOf(t);
    if (old === null) copy.removeAttribute(name);
    else copy.setAttribute(name, old);
    if (!wide) return copy.matches(joined) ? [t] : [];
    let top = copy;
    for (let p = t.parentElement || t.parentNode?.host; p && p.nodeType === 1; p = p.parentElement || p.parentNode?.host) {
      const o = copyOf(p);
      o.append(top);
      top = o;
    }
    const orig = [t, ...t.querySelectorAll('*')];
    const copies = [copy, ...copy.querySelectorAll('*')];
    return orig.length === copies.length ? orig.filter((_, i) => copies[i].matches(joined)) : [];
  };

  const added = new Set();
  const WATCH = {
    subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true, characterDataOldValue: true,
    attributeFilter: ['type', 'class', 'data-sensitive', 'data-private', 'value', 'name', 'id', 'autocomplete'],
  };
  // Whether every child of `n` came with it, in the records the observer is reading.
  const cameWhole = (n) => { for (let c = n.firstElementChild; c; c = c.nextElementSibling) if (!added.has(c)) return false; return true; };
  // Watching from document_start: a password shown as text, an attribute removed, a field swapped for a new
  // one, all happen after this observer saw the secret; its callback runs before the next page script.
  const observer = new MutationObserver((records) => {
    const texts = []; // [text a secret may have held (or a node taken out of it), the element it was in]
    for (const r of records) {
      const type = r.type; // (a record's fields are read across into the DOM: once each)
      if (type === 'characterData') texts.push([r.oldValue, r.target.parentElement]);
      else if (type === 'attributes') {
        const t = r.target;
        if (once.has(t)) remember(t);
        else if ((r.attributeName === 'type' && (r.oldValue || '').toLowerCase() === 'password') || t.matches(joined)) remember(t);
        else if (r.oldValue !== t.getAttribute(r.attributeName)) for (const el of matchedBefore(t, r.attributeName, r.oldValue)) remember(el);
        // A field inside a secret: the value its attribute held is one too (a script may copy it, then change it).
        if (r.attributeName === 'value' && FIELDS.has(t.localName) && agent.isSensitive(t)) inner(t, r.oldValue);
      } else {
        const gone = r.removedNodes;
        for (let i = 0; i < gone.length; i += 1) {
          texts.push([gone[i], r.target.host || r.target]);
          leaving(gone[i]);
        }
        const came = r.addedNodes;
        for (let i = 0; i < came.length; i += 1) if (came[i].nodeType === 1) added.add(came[i]);
      }
    }
    // The parser adds a row, then each of its cells (each its own record): a subtree is searched only
    // when its children came with it (a script built it first), not once per ancestor.
    for (const n of added) {
      if (!n.isConnected) continue;
      if (cameWhole(n)) {
        if (n.matches(joined)) remember(n);
        else if (FIELDS.has(n.localName) && agent.isSensitive(n)) inner(n);
        if (n.localName === 'select' || n.localName === 'template') scan(n);
        const root = rootOf(n);
        if (root) watchShadows(root, true);
      } else {
        scan(n);
        watchShadows(n);
      }
    }
    added.clear();
    // Text a secret held before a script changed or replaced it (judged last: the same records may have
    // just made its element known as a secret, or unmarked it). A document with no secret known pays nothing.
    if (!texts.length || !(onceLive.size || agent.isSensitive(document.documentElement))) return;
    for (const [v, el] of texts) if ((typeof v !== 'string' || v.trim().length > 3) && agent.isSensitive(el)) agent.rememberValue(typeof v === 'string' ? v : v.textContent);
  });
  observer.observe(document, WATCH);

  // Shadow roots are watched as the document is, from the moment they are attached: a page script
  // tells of each as it attaches it (main_world/redact_shadow.js, in the page's world), and a host
  // added to a watched tree is looked into (a root attached some other way is found then).
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  // The API takes HTML elements only (an SVG or MathML one cannot host a root: it throws); an HTML
  // element of another frame's document may be refused too, and then shows only an open root.
  // Only these and custom elements (a hyphen in the name) can host a shadow root, declarative ones too.
  const HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span']);
  const rootOf = (el) => {
    if (el.namespaceURI !== HTML_NS || !(HOSTS.has(el.localName) || el.localName.includes('-'))) return null;
    try {
      return (globalThis.chrome?.dom?.openOrClosedShadowRoot ? chrome.dom.openOrClosedShadowRoot(el) : el.shadowRoot) || null;
    } catch {
      return el.shadowRoot || null;
    }
  };
  /** `el`'s shadow root, open or closed (what it shows is on the page, whatever its mode), or null. */
  agent.shadowRootOf = rootOf;
  /** `tree` (a document or a root) and every shadow root in it, open or closed, nested ones included. */
  agent.treesOf = function* treesOf(tree) {
    for (const stack = [tree]; stack.length;) {
      const next = stack.pop();
      yield next;
      for (const el of next.querySelectorAll('*')) if (rootOf(el)) stack.push(rootOf(el));
    }
  };
  const watched = new WeakSet();
  const rootWatchers = [];
  /** Watch the shadow roots in `node`'s tree (`node` itself one, with `isRoot`), and in theirs. */
  const watchShadows = (node, isRoot = false) => {
    if (isRoot) {
      if (watched.has(node)) return; // its observer finds what is added in it, roots included
      watched.add(node);
      observer.observe(node, WATCH);
      for (const w of rootWatchers) w(node);
      scan(node);
    }
    const els = node.nodeType === 1 ? [node, ...node.querySelectorAll('*')] : node.querySelectorAll('*');
    for (const el of els) if (rootOf(el)) watchShadows(rootOf(el), true);
  };
  /** Call `fn` with each shadow root watched from now on (page/redact_early.js watches them too). */
  agent.onShadowRoot = (fn) => rootWatchers.push(fn);
  // First on window, capturing, from before any page script: no listener of the page runs before it.
  // A root attached in this frame may be adopted by a document up the tree (same origin, its agent
  // reads this frame too): those agents watch it from now on as well, this frame may be gone by then.
  globalThis.addEventListener?.('tabpilot-shadow-root', (e) => {
    const host = e.relatedTarget;
    // An element, or a fragment or document a copy made (its elements may be hosts of copied roots).
    if (!host || ![1, 9, 11].includes(host.nodeType)) return;
    watchShadows(host);
    for (let up = agent.parentAgent(); up && up.watchRoots; up = up.parentAgent()) up.watchRoots(host);
  }, true);
  /** Watch the shadow roots in `node`'s tree (a frame below tells of roots attached there). */
  agent.watchRoots = (node) => watchShadows(node);
  // A frame sandboxed without allow-scripts (or a page its server's CSP sandboxes) runs no page-world
  // script, the guard's included, yet same-origin documents above it and its opener can call its
  // functions: each puts its wrappers here (main_world/redact_shadow.js).
  const reach = [globalThis.opener];
  for (let w = globalThis.window; w && w.parent !== w; w = w.parent) reach.push(w.parent);
  for (const up of reach) {
    try { up?.document.dispatchEvent(new MouseEvent('tabpilot-frame-realm', { relatedTarget: document })); } catch { /* another origin */ }
  }
  if (document.readyState !== 'loading') watchShadows(document); // injected late: roots attached already
  // What the person (or a page script) types into a secret field is remembered as it is typed.
  const typed = (e) => {
    let t = e.composedPath ? e.composedPath()[0] : e.target;
    // From a closed root the event names only its host: the field is the one focused inside it.
    for (let r = t && t.nodeType === 1 ? rootOf(t) : null; r && r.activeElement; r = rootOf(t)) t = r.activeElement;
    if (t && t.nodeType === 1 && (once.has(t) || (FIELDS.has(t.localName) && t.matches(joined)))) remember(t);
  };
  document.addEventListener('input', typed, true);
  document.addEventListener('change', typed, true);
  scan(document);

  /** Use `list` (from the worker, which keeps the user's setting); invalid entries are skipped. */
  agent.setRedaction = (list) => {
    const next = list.filter((s) => typeof s === 'string' && s && !INTRINSIC.includes(s) && validSelector(s));
    if (JSON.stringify(next) !== JSON.stringify(userList)) {
      userList = next;
      rebuild();
    }
    scan(document);
    for (const el of onceLive) {
      if (el.isConnected) remember(el);
      else onceLive.delete(el);
    }
  };

  /** The selector list that marks a secret (for walkers that test each element once). */
  agent.sensitiveSelector = () => joined;

  /** Remember `el` as a secret input (the agent typed into it while it was a password). */
  agent.markSecret = (el) => void (el && el.nodeType === 1 && remember(el));

  /** Is `el` itself a secret root (a match of the list, or one remembered)? */
  agent.isSecretRoot = (el) => {
    if (el.nodeType !== 1) return false;
    if (once.has(el)) return true;
    if (el.matches(joined)) {
      remember(el);
      return true;
    }
    return false;
  };

  const outer = (e) => {
    const root = e.getRootNode();
    if (root.host) return root.host;
    try {
      return root.defaultView ? root.defaultView.frameElement : null;
    } catch {
      return null;
    }
  };

  /** Is `el` (or an ancestor, across shadow roots and same-origin frames) a secret? */
  agent.isSensitive = (el) => {
    if (!el || el.nodeType !== 1) return false;
    for (let e = el; e; e = outer(e)) {
      if (e.closest(joined) !== null) return true;
      if (onceLive.size) for (let a = e; a; a = a.parentElement) if (once.has(a)) return true;
    }
    return false;
  };

  const holdsOnce = (el) => {
    for (const x of onceLive) if (x !== el && el.contains(x)) return true;
    return false;
  };

  /** Does anything inside `el` (or `el` itself) need redacting? */
  agent.hasSensitive = (el) => agent.isSensitive(el) || el.querySelector(joined) !== null || holdsOnce(el);

  /** Every secret root in `root`'s tree (not descending into shadow roots or frames). */
  agent.secretRoots = (root) => {
    scan(root);
    const found = new Set(root.querySelectorAll(joined));
    for (const x of onceLive) if (x.isConnected && root.contains(x)) found.add(x);
    return [...found];
  };

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();

  // ---- text, html, attributes, values ----------------------------------------------------------

  /** Text of `el`, whitespace-normalised, with every secret subtree replaced by [REDACTED]. */
  agent.redactedText = (el) => {
    if (agent.isSensitive(el)) return REDACTED;
    if (el.querySelector(joined) === null && !holdsOnce(el)) return agent.maskPatterns(normalise(agent.maskedTextOf(el)));
    const parts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 1 && (once.has(n) || n.matches(joined))) {
          parts.push(` ${REDACTED} `);
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) parts.push(agent.maskPatterns(n.data));
    }
    return agent.maskPatterns(normalise(parts.join('')));
  };

  /** A URL with its query and fragment replaced (its path stays: where a link goes is not its secret). */
  agent.redactUrl = (url) => url.replace(/[?#][\s\S]*$/, (m) => `${m[0]}${REDACTED}`);

  /** The value attribute `name` of a secret element shows: structural ones as they are, the rest redacted. */
  const secretAttr = (name, value) => {
    if (STRUCTURAL.has(name)) return value;
    return URL_ATTRS.has(name) ? agent.redactUrl(value) : REDACTED;
  };

  /** Redact `copy` (a clone of the secret element `orig`): its values, attributes and text. */
  const redactCopy = (copy, orig) => {
    for (const attr of [...copy.attributes]) copy.setAttribute(attr.name, secretAttr(attr.name, attr.value));
    if ((copy.localName === 'input' || copy.localName === 'textarea') && (orig.value || copy.hasAttribute('value'))) {
      copy.setAttribute('value', REDACTED);
    }
    for (const child of copy.childNodes) if (child.nodeType === 3 && child.data.trim()) child.data = REDACTED;
  };

  /** innerHTML (or outerHTML) of `el` with secret elements' values, text and non-structural attributes replaced. */
  agent.redactedHtml = (el, outer = false) => {
    const secretHere = agent.isSensitive(el);
    if (!secretHere && !agent.hasSensitive(el)) return agent.maskPatterns(outer ? el.outerHTML : el.innerHTML);
    const copy = el.cloneNode(true);
    // A clone has the same elements in the same order: index i of one is index i of the other.
    const origAll = [el, ...el.querySelectorAll('*')];
    const copyAll = [copy, ...copy.querySelectorAll('*')];
    for (let i = 0; i < origAll.length; i++) {
      if (secretHere || agent.isSensitive(origAll[i])) redactCopy(copyAll[i], origAll[i]);
    }
    return agent.maskPatterns(outer ? copy.outerHTML : copy.innerHTML);
  };

  /** Attribute `name` of `el`, redacted when `el` is a secret and the attribute holds a value. */
  agent.redactedAttr = (el, name) => {
    const value = el.getAttribute(name);
    if (value === null) return null;
    return agent.isSensitive(el) ? secretAttr(name, value) : agent.maskPatterns(value);
  };

  /** The current value of a form control, or [REDACTED] for a secret one. */
  agent.redactedValue = (el) => (agent.isSensitive(el) ? REDACTED : agent.maskPatterns(el.value));
})();
