// Redaction inside the page, the one set of rules every channel uses (snapshot, markdown, extract,
// suggest, skeleton, errors, wait_for, selectors, screenshot masks). A secret is an element matching
// the configured selectors (default: [data-sensitive], [data-private], .sensitive) or a password input
// (one that is a password now, was one earlier, or that the agent typed into while it was one; a text
// field that says it holds a password by its autocomplete, name or id), and everything inside it, across open shadow roots and same-origin frames. Only values and text are
// replaced by "[REDACTED]": structural attributes (class, maxlength...) stay, a link keeps its path.
// Secret-shaped text no attribute marks (cards, key formats: the pattern list) is masked as well.
(() => {
  const agent = globalThis.__tabpilotAgent.use('redact', {
    provides: ['REDACTED', 'setRedaction', 'sensitiveSelector', 'markSecret', 'isSecretRoot', 'isSensitive', 'hasSensitive', 'secretRoots', 'setPatterns', 'maskPatterns', 'patternsHit', 'patternMatches', 'maskDeep', 'redactedText', 'redactUrl', 'redactedHtml', 'redactedAttr', 'redactedValue', 'scrubber', 'scrubText', 'commands.scrub', 'safeSelector'],
  });
  if (agent.REDACTED) return;
  const REDACTED = '[REDACTED]';
  // A password is a secret whatever the user's list says. The agent usually sees a field while it is a
  // password (it is injected as a page the pilot drives commits: worker/lib/ahead.js), but a page may
  // switch it to type=text ("show password") before the agent arrives (a tab the person opened): a
  // text field then still counts when its autocomplete, name or id says password.
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
  let joined = DEFAULT.join(',');
  let userList = DEFAULT.slice(INTRINSIC.length);
  // Inputs that were passwords once, or took a secret the agent typed: a "show password" toggle
  // switching them to type=text does not make their value public.
  const once = new WeakSet();
  let flipped = false; // some input in `once` may no longer be a password
  let patterns = [];
  let patternKey = null;

  agent.REDACTED = REDACTED;

  const validSelector = (s) => {
    try {
      document.createDocumentFragment().querySelector(s);
      return true;
    } catch {
      return false;
    }
  };

  /** Use `list` (from the worker, which keeps the user's setting); invalid entries are skipped. */
  agent.setRedaction = (list) => {
    userList = list.filter((s) => typeof s === 'string' && s && !INTRINSIC.includes(s) && validSelector(s));
    joined = [...INTRINSIC, ...userList].join(',');
  };

  /** The selector list that marks a secret (for walkers that test each element once). */
  agent.sensitiveSelector = () => joined;

  const notePasswords = (root) => {
    for (const el of root.querySelectorAll('input[type=password]')) once.add(el);
  };
  // The page switching a password input's type is seen as it happens, so no later read finds it in clear.
  new MutationObserver((records) => {
    for (const r of records) {
      if ((r.oldValue || '').toLowerCase() === 'password') {
        once.add(r.target);
        flipped = true;
      }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['type'], attributeOldValue: true });
  notePasswords(document);

  /** Remember `el` as a secret input (the agent typed into it while it was a password). */
  agent.markSecret = (el) => {
    if (!el || el.nodeType !== 1) return;
    once.add(el);
    flipped = true;
  };

  /** Is `el` itself a secret root (a match of the list, or a once-password input)? */
  agent.isSecretRoot = (el) => {
    if (el.nodeType !== 1) return false;
    if (once.has(el)) return true;
    if (el.localName === 'input' && el.type === 'password') {
      once.add(el);
      return true;
    }
    return el.matches(joined);
  };

  /** Is `el` (or an ancestor, across shadow roots and same-origin frames) a secret? */
  agent.isSensitive = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (once.has(el)) return true;
    for (let e = el; e;) {
      if (e.closest(joined) !== null) return true;
      const root = e.getRootNode();
      if (root.host) e = root.host;
      else {
        let frame = null;
        try {
          frame = root.defaultView ? root.defaultView.frameElement : null;
        } catch {
          frame = null;
        }
        e = frame;
      }
    }
    return false;
  };

  /** Does anything inside `el` (or `el` itself) need redacting? */
  agent.hasSensitive = (el) => agent.isSensitive(el) || el.querySelector(joined) !== null
    || (flipped && [...el.querySelectorAll('input')].some((i) => once.has(i)));

  /** Every secret root in `root`'s tree (not descending into shadow roots or frames). */
  agent.secretRoots = (root) => {
    notePasswords(root);
    const found = new Set(root.querySelectorAll(joined));
    if (flipped) for (const i of root.querySelectorAll('input')) if (once.has(i)) found.add(i);
    return [...found];
  };

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();

  // ---- secret-shaped text ----------------------------------------------------------------------

  const luhn = (digits) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  };

  /** Use the pattern list `list` (strings; a "luhn:" prefix asks for a Luhn check of the match's digits). */
  agent.setPatterns = (list) => {
    const key = JSON.stringify(list);
    if (key === patternKey) return;
    patternKey = key;
    patterns = [];
    for (const entry of list) {
      if (typeof entry !== 'string' || !entry) continue;
      const check = entry.startsWith('luhn:');
      try {
        patterns.push({ re: new RegExp(check ? entry.slice(5) : entry, 'g'), check });
      } catch {
        // An entry the popup let through but this engine refuses is skipped, not fatal.
      }
    }
  };

  /** `text` with every secret-shaped run (the pattern list) replaced by [REDACTED]. */
  agent.maskPatterns = (text) => {
    if (typeof text !== 'string' || !text || !patterns.length) return text;
    let out = text;
    for (const { re, check } of patterns) {
      re.lastIndex = 0;
      if (!re.test(out)) continue;
      re.lastIndex = 0;
      out = out.replace(re, (m) => (!check || luhn(m.replace(/[^0-9]/g, '')) ? REDACTED : m));
    }
    return out;
  };

  /** Does `text` hold anything secret-shaped? (Cheap: no replacement is built.) */
  agent.patternsHit = (text) => {
    if (typeof text !== 'string' || !text || !patterns.length) return false;
    return patterns.some(({ re }) => {
      re.lastIndex = 0;
      const hit = re.test(text);
      re.lastIndex = 0;
      return hit;
    });
  };

  /** Where secret-shaped runs are in `text`: [{start, end}] (for screenshot masks). */
  agent.patternMatches = (text) => {
    const found = [];
    for (const { re, check } of patterns) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (!m[0]) {
          re.lastIndex += 1;
          continue;
        }
        if (!check || luhn(m[0].replace(/[^0-9]/g, ''))) found.push({ start: m.index, end: m.index + m[0].length });
      }
      re.lastIndex = 0;
    }
    return found;
  };

  /** `value` (JSON-safe) with every string in it masked by the pattern list. */
  agent.maskDeep = (value) => {
    if (typeof value === 'string') return agent.maskPatterns(value);
    if (Array.isArray(value)) return value.map(agent.maskDeep);
    if (value && typeof value === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[agent.maskPatterns(k)] = agent.maskDeep(v);
      return out;
    }
    return value;
  };

  // ---- text, html, attributes, values ----------------------------------------------------------

  /** Text of `el`, whitespace-normalised, with every secret subtree replaced by [REDACTED]. */
  agent.redactedText = (el) => {
    if (agent.isSensitive(el)) return REDACTED;
    if (el.querySelector(joined) === null) return agent.maskPatterns(normalise(el.textContent || ''));
    const parts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 1 && n.matches(joined)) {
          parts.push(` ${REDACTED} `);
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) parts.push(n.data);
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

  /** Every value and text a secret element in `doc` holds (trimmed, 3+ characters). */
  const secretValues = (doc, into) => {
    for (const el of agent.secretRoots(doc)) {
      for (const secret of [el.value, el.textContent, ...[...el.attributes].filter((a) => !STRUCTURAL.has(a.name)).map((a) => a.value)]) {
        if (typeof secret === 'string' && secret.trim().length >= 3) into.add(secret.trim());
      }
      for (const inner of el.querySelectorAll('input, textarea, select')) {
        if (inner.value && inner.value.trim().length >= 3) into.add(inner.value.trim());
      }
    }
  };

  /** A function that replaces every secret value the page holds now, and secret-shaped text, in a string. */
  agent.scrubber = () => {
    const values = new Set();
    secretValues(document, values);
    const longestFirst = [...values].sort((a, b) => b.length - a.length);
    return (text) => {
      if (typeof text !== 'string' || !text) return text;
      let out = text;
      for (const secret of longestFirst) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      return agent.maskPatterns(out);
    };
  };

  /** Replace every known secret value on the page, and secret-shaped text, that occurs in `text`. */
  agent.scrubText = (text) => (typeof text !== 'string' || !text ? text : agent.scrubber()(text));

  /** Free-form texts from elsewhere (the page's console errors), scrubbed here before they leave. */
  agent.commands.scrub = ({ texts }) => {
    const scrub = agent.scrubber();
    return { texts: Array.isArray(texts) ? texts.map(scrub) : [] };
  };

  // ---- selectors without oracles ---------------------------------------------------------------

  const safeCache = new Map();
  /**
   * `selector` rewritten so that its attribute-value tests ([a=v], [a^=v], [a*=v]...) never match a
   * secret element or anything inside one: whether it matches cannot depend on a redacted value.
   * Presence tests ([a]) are left alone.
   */
  agent.safeSelector = (selector) => {
    if (typeof selector !== 'string' || !selector.includes('[') || !selector.includes('=')) return selector;
    const key = `${joined}\n${selector}`;
    let out = safeCache.get(key);
    if (out !== undefined) return out;
    const guard = `:not(${joined}):not(:is(${joined}) *)`;
    out = '';
    let i = 0;
    while (i < selector.length) {
      const c = selector[i];
      if (c === '"' || c === "'") {
        // A string outside brackets (e.g. in :not("...")) is copied through.
        let j = i + 1;
        while (j < selector.length && selector[j] !== c) j += selector[j] === '\\' ? 2 : 1;
        out += selector.slice(i, j + 1);
        i = j + 1;
      } else if (c === '\\') {
        out += selector.slice(i, i + 2);
        i += 2;
      } else if (c === '[') {
        let j = i + 1;
        let quote = null;
        while (j < selector.length) {
          const d = selector[j];
          if (quote) {
            if (d === '\\') j += 1;
            else if (d === quote) quote = null;
          } else if (d === '"' || d === "'") quote = d;
          else if (d === ']') break;
          j += 1;
        }
        const part = selector.slice(i, j + 1);
        out += part;
        const attr = /^\[\s*(?:[\w-]*\|)?([\w-]+)\s*[~|^$*]?=/.exec(part);
        if (attr && !STRUCTURAL.has(attr[1].toLowerCase())) out += guard;
        i = j + 1;
      } else {
        out += c;
        i += 1;
      }
    }
    if (safeCache.size > 200) safeCache.clear();
    safeCache.set(key, out);
    return out;
  };
})();
