// Selectors without oracles: whether a selector matches must not depend on a secret's value, or
// wait_for, a scope, a workflow's `exists` or a click target would answer "does the password start
// with P?". The browser parses the selector (its own serialisation undoes escapes such as
// `[v\61 lue^=x]` and spells namespaces as `*|value`), and every attribute-value test on an attribute
// that can hold a value gets a guard so it never matches a secret element or anything inside one.
// When the document holds secrets, such a selector is run on a copy of the document whose secret
// elements have their values and attributes masked, so nothing it tests (:has, siblings, elements
// only remembered as secret) can depend on a secret's value.
(() => {
  const agent = globalThis.__tabpilotAgent.use('safe_selector', {
    needs: ['secretRoots', 'sensitiveSelector', 'structural'],
    provides: ['safeSelector', 'valueTests', 'maskedQuery'],
  });
  if (agent.safeSelector) return;
  const cache = new Map();

  /** The browser's own spelling of `selector` (escapes resolved), or null when it will not say. */
  const canonical = (selector) => {
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(`${selector}{}`);
      if (sheet.cssRules.length !== 1 || !sheet.cssRules[0].selectorText) return null;
      return sheet.cssRules[0].selectorText;
    } catch {
      return null;
    }
  };

  /** `text` split at the attribute selectors ([...]), quotes and escapes respected. */
  const pieces = (text) => {
    const out = [];
    let i = 0;
    let plain = '';
    while (i < text.length) {
      const c = text[i];
      if (c === '"' || c === "'") {
        let j = i + 1;
        while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
        plain += text.slice(i, j + 1);
        i = j + 1;
      } else if (c === '\\') {
        plain += text.slice(i, i + 2);
        i += 2;
      } else if (c === '[') {
        let j = i + 1;
        let quote = null;
        while (j < text.length) {
          const d = text[j];
          if (quote) {
            if (d === '\\') j += 1;
            else if (d === quote) quote = null;
          } else if (d === '"' || d === "'") quote = d;
          else if (d === ']') break;
          j += 1;
        }
        out.push(plain, text.slice(i, j + 1));
        plain = '';
        i = j + 1;
      } else {
        plain += c;
        i += 1;
      }
    }
    out.push(plain);
    return out; // plain, bracket, plain, bracket, ..., plain
  };

  /** Does the attribute selector `part` ("[...]") test a value an element's secret could be in? */
  const testsValue = (part) => {
    const m = /^\[\s*(?:(?:[^\s|=\]]*|\*)\|(?!=))?((?:\\.|[^\s~|^$*=\]])+)\s*([~|^$*]?=)?/.exec(part);
    if (!m) return true; // not understood: treat as a value test
    if (!m[2]) return false; // presence only: [attr]
    const name = m[1].replace(/\\(.)/g, '$1').toLowerCase();
    return !agent.structural.has(name);
  };

  /** Whether `selector` tests any attribute's value that could be a secret's (after the browser's parse). */
  agent.valueTests = (selector) => {
    if (typeof selector !== 'string' || !selector.includes('[')) return false;
    const text = canonical(selector) ?? selector;
    return pieces(text).some((p, k) => k % 2 === 1 && testsValue(p));
  };

  const masked = (copy) => {
    for (const attr of [...copy.attributes]) if (!agent.structural.has(attr.name)) copy.setAttribute(attr.name, '[REDACTED]');
  };

  /**
   * The elements under `root` that `selector` matches in a copy of the document with every secret
   * element's attributes masked; null when that cannot be done here (a shadow root) or is not needed.
   */
  agent.maskedQuery = (selector, root) => {
    if (!agent.valueTests(selector) || (root !== document && root.ownerDocument !== document) || root.getRootNode() !== document) return null;
    const secrets = agent.secretRoots(document);
    if (!secrets.length) return null;
    const orig = [...document.querySelectorAll('*')];
    const copyDoc = document.cloneNode(true);
    const copy = [...copyDoc.querySelectorAll('*')];
    if (copy.length !== orig.length) return null;
    const index = new Map(orig.map((el, i) => [el, i]));
    for (const el of secrets) {
      const i = index.get(el);
      if (i === undefined) continue;
      masked(copy[i]);
      for (const inner of copy[i].querySelectorAll('*')) masked(inner);
    }
    const copyRoot = root === document ? copyDoc : copy[index.get(root)];
    if (!copyRoot) return null;
    const back = new Map(copy.map((el, i) => [el, orig[i]]));
    return [...copyRoot.querySelectorAll(selector)].map((el) => back.get(el)).filter(Boolean);
  };

  /**
   * `selector` rewritten so that its attribute-value tests never match a secret element or anything
   * inside one. Presence tests ([a]) and structural attributes (type, name, id, class...) stay as they are.
   */
  agent.safeSelector = (selector) => {
    if (typeof selector !== 'string' || !selector.includes('[')) return selector;
    const joined = agent.sensitiveSelector();
    const key = `${joined}\n${selector}`;
    let out = cache.get(key);
    if (out !== undefined) return out;
    const text = canonical(selector) ?? selector;
    const guard = `:not(${joined}):not(:is(${joined}) *)`;
    out = pieces(text).map((p, k) => (k % 2 === 1 && testsValue(p) ? `${p}${guard}` : p)).join('');
    if (cache.size > 200) cache.clear();
    cache.set(key, out);
    return out;
  };
})();
