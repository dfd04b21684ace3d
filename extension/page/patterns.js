// Secret-shaped text, and the values secret fields have held in this document: both are masked
// wherever text leaves the page (snapshot, markdown, extract, suggest, errors, screenshot masks). The
// patterns come from the worker (its defaults are generated from host/tabpilot/wire/secret_patterns.py);
// the values are remembered by page/redact.js as it sees them, so a value the page copies out of a
// secret field into a plain element, or keeps after replacing the field, is still known as a secret.
(() => {
  const agent = globalThis.__tabpilotAgent.use('patterns', {
    needs: ['parentAgent'],
    provides: ['setPatterns', 'rememberValue', 'knownValues', 'maskPatterns', 'patternsHit', 'patternMatches', 'maskDeep', 'maskedTextOf'],
  });
  if (agent.maskPatterns) return;
  const REDACTED = '[REDACTED]';
  // Shorter values would shred ordinary text wherever they occur.
  const MIN_VALUE = 4;
  const MAX_VALUES = 500;
  let patterns = [];
  let patternKey = null;
  const values = new Set();
  let valueRe = null;
  let splitHits = null; // does the page show a secret-shaped run inside one text node? (null: not looked yet)

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
    splitHits = null; // once per command: the page may have changed since the last
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

  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** Remember `value` (a secret field's value or a secret element's text) as a secret of this document;
   * `before`, the same field's value when last remembered, is forgotten when `value` holds it: a value is
   * remembered as it is typed, and "pass" on the way to "passw0rd!" is no secret of its own (remembered,
   * it would mask the word wherever the page shows it). */
  agent.rememberValue = (value, before = null) => {
    if (typeof value !== 'string') return;
    const v = value.trim();
    const old = typeof before === 'string' ? before.trim() : '';
    const dropped = old && old !== v && v.includes(old) && values.delete(old);
    if (dropped) values.delete(old.replace(/\s+/g, ' '));
    if (v.length < MIN_VALUE || values.has(v) || v === REDACTED) {
      if (dropped) rebuildValues();
      return;
    }
    for (const form of new Set([v, v.replace(/\s+/g, ' ')])) {
      if (values.size >= MAX_VALUES) values.delete(values.values().next().value);
      values.add(form);
    }
    rebuildValues();
    // A same-origin frame is read by the agent of the document that holds it too (a snapshot walks into
    // it): that one learns this document's secret values, up to the top.
    const up = agent.parentAgent();
    if (up && typeof up.rememberValue === 'function') up.rememberValue(v);
  };

  const rebuildValues = () => {
    if (!values.size) {
      valueRe = null;
      return;
    }
    const longestFirst = [...values].sort((a, b) => b.length - a.length);
    valueRe = new RegExp(longestFirst.map(escape).join('|'), 'g');
  };

  /** The remembered secret values (for scrubbing where this world's masking cannot run). */
  agent.knownValues = () => [...values];

  const hitsValue = (text) => {
    if (!valueRe) return false;
    valueRe.lastIndex = 0;
    const hit = valueRe.test(text);
    valueRe.lastIndex = 0;
    return hit;
  };

  /** `text` with every remembered secret value and every secret-shaped run replaced by [REDACTED]. */
  agent.maskPatterns = (text) => {
    if (typeof text !== 'string' || !text) return text;
    let out = text;
    if (hitsValue(out)) out = out.replace(valueRe, REDACTED);
    for (const { re, check } of patterns) {
      re.lastIndex = 0;
      if (!re.test(out)) continue;
      re.lastIndex = 0;
      out = out.replace(re, (m) => (!check || luhn(m.replace(/&#?[0-9A-Za-z]+;/g, '').replace(/[^0-9]/g, '')) ? REDACTED : m));
    }
    return out;
  };

  /** Does `text` hold anything secret-shaped or a remembered value? (Cheap: no replacement is built.) */
  agent.patternsHit = (text) => {
    if (typeof text !== 'string' || !text) return false;
    if (hitsValue(text)) return true;
    return patterns.some(({ re }) => {
      re.lastIndex = 0;
      const hit = re.test(text);
      re.lastIndex = 0;
      return hit;
    });
  };

  /** Where secret-shaped runs and remembered values are in `text`: [{start, end}] (for screenshot masks). */
  agent.patternMatches = (text) => {
    const found = [];
    const all = valueRe ? [...patterns, { re: valueRe, check: false }] : patterns;
    for (const { re, check } of all) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (!m[0]) {
          re.lastIndex += 1;
          continue;
        }
        if (!check || luhn(m[0].replace(/&#?[0-9A-Za-z]+;/g, '').replace(/[^0-9]/g, ''))) found.push({ start: m.index, end: m.index + m[0].length });
      }
      re.lastIndex = 0;
    }
    return found;
  };

  const texts = (node) => {
    const out = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n.data);
    return out;
  };

  /**
   * `node`'s textContent masked. Adjacent elements' texts run together in it ("Deploy keyAKIA..."),
   * which hides a run's word boundary from the patterns: each text node is masked on its own first
   * when the page has such runs, then the whole (a run split over several spans).
   */
  agent.maskedTextOf = (node) => {
    const whole = node.textContent || '';
    if (!patterns.length && !valueRe) return whole;
    if (splitHits === null) splitHits = agent.patternsHit(texts(document.documentElement).join(' '));
    if (!splitHits) return agent.maskPatterns(whole);
    return agent.maskPatterns(texts(node).map(agent.maskPatterns).join(''));
  };

  /** `value` (JSON-safe) with every string in it masked. */
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
})();
