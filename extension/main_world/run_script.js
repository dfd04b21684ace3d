// Injected into the page's MAIN world by chrome.scripting.executeScript: self-contained (only its source
// travels). Under a CSP that forbids eval it travels in a Runtime.evaluate with the code in `given`.

/** The name the agent's extractor carries in stack traces (its sourceURL), on both paths. */
export const EXTRACTOR_SOURCE = 'tabpilot-extractor.js';

/**
 * Run `script` as an expression, or as a function body if it is not one (or call `given`, the agent's
 * code as a function); await a promise; answer the JSON text {"success":true,"result":...} (with
 * "capped":true when an array was cut to `maxItems`, null for no cap) or
 * {"success":false,"error":...,"stack":...}; {too_large: n} when the result's JSON text has more than
 * `maxChars` characters; {csp: message} when the page's Content-Security-Policy forbids compiling the
 * script here.
 *
 * With `extractor` ({root, redact, patterns, values, lines, lineOffset}) the script is a function body of `root` (the
 * element matching the CSS selector `root`, else the document), known secrets are scrubbed from the
 * value, and the answer is the JSON text {"result":...,"redacted":n,"url":...} or an object:
 * {thrown: {error, stack, line, column}} (position within the agent's script), {syntax: thrown} (the
 * script does not compile; no position known here), {bad_root: {invalid, message}} (css_selector
 * invalid or matching nothing), {empty: what}.
 *
 * With `rules` ({redact, patterns, values}; execute_js) the same scrub applies to a plain script's
 * value, error and stack ("redacted":n, when n > 0). `values` are the secrets the page agent remembers.
 * Encoded forms (case, URL, base64, pieces) are caught; a script written to leak can still encrypt.
 */
export async function runInPage(script, maxChars, given = null, maxItems = 10_000, extractor = null, rules = null) {
  const SOURCE = 'tabpilot-extractor.js'; // EXTRACTOR_SOURCE: module scope does not travel
  const REDACTED = '[REDACTED]';
  const limit = maxItems === null ? Infinity : maxItems;
  // new Function puts two lines ("async function anonymous(root" and ") {") before the body.
  const offset = given ? (extractor && extractor.lineOffset) || 0 : 2;
  let scrub = null;
  const policy = extractor || rules;
  // Secret-shaped text (the pattern list, as page/redact.js reads it; "luhn:" asks for a Luhn check).
  const patterns = [];
  for (const entry of (policy && policy.patterns) || []) {
    if (typeof entry !== 'string' || !entry) continue;
    const check = entry.startsWith('luhn:');
    try {
      patterns.push({ re: new RegExp(check ? entry.slice(5) : entry, 'g'), check });
    } catch {}
  }
  const luhn = (digits) => [...digits].reverse().reduce((sum, c, i) => sum + (i % 2 ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][c] : +c), 0) % 10 === 0;
  let withPatterns = false; // set once the value's JSON shows something secret-shaped
  const patternsHit = (text) => patterns.some(({ re }) => {
    re.lastIndex = 0;
    const hit = re.test(text);
    re.lastIndex = 0;
    return hit;
  });

  // Frames of the agent's code name SOURCE; their lines are shifted back by the wrapper's, and the
  // runner's own frames (same source on the debugger path, outside the script's lines) are dropped.
  const locate = (stack) => {
    const kept = [];
    let at = null;
    for (const text of stack.split('\n')) {
      const m = /^\s*at (?:(.*) \()?(.*):(\d+):(\d+)\)?$/.exec(text);
      if (!m) {
        if (!/^\s*at /.test(text)) kept.push(text);
        continue;
      }
      const line = Number(m[3]) - offset;
      if (m[2] !== SOURCE || line < 1 || line > extractor.lines) continue;
      const column = Number(m[4]);
      at ??= { line, column };
      const fn = m[1] && !['eval', 'anonymous', '<anonymous>'].includes(m[1]) ? m[1] : null;
      kept.push(fn ? `    at ${fn} (script:${line}:${column})` : `    at script:${line}:${column}`);
    }
    return { stack: kept.join('\n'), line: at ? at.line : null, column: at ? at.column : null };
  };
  const failure = (err) => {
    const isError = err instanceof Error || (err && typeof err.message === 'string');
    const error = isError ? `${err.name || 'Error'}: ${err.message}` : `Uncaught ${String(err)}`;
    const stack = isError && typeof err.stack === 'string' ? err.stack : '';
    withPatterns = patterns.length > 0; // an error is one short text: no need to look first
    if (!extractor) {
      const tidy = (t) => (scrub ? scrub.text(t) : t);
      return JSON.stringify({ success: false, error: tidy(error), stack: tidy(stack) });
    }
    const where = locate(stack);
    const clean = (t) => (scrub ? scrub.text(t) : t);
    return { thrown: { error: clean(error), stack: clean(where.stack), line: where.line, column: where.column } };
  };

  // Every string a secret element holds: its value, its text (whole, whitespace-collapsed and per text
  // node), its attributes' values. Password inputs count whatever the list says; open shadow roots and
  // same-origin frames are searched too.
  const PLAIN_ATTRS = new Set(['class', 'id', 'type', 'name', 'style', 'role', 'for', 'autocomplete', 'hidden', 'tabindex', 'data-sensitive', 'data-private']);
  const collectSecrets = (into) => {
    // The page agent's memory (policy.values) covers fields shown as text since; these stand in without it.
    const PASSWORDS = ['input[type=password]', 'input[autocomplete*=password i]', 'input[name=pw i]', 'input[id=pw i]',
      'input[name*=passw i]', 'input[id*=passw i]', 'input[name*=pwd i]', 'input[id*=pwd i]'];
    const valid = [...PASSWORDS, ...(policy.redact || [])].filter((s) => {
      try { return document.createDocumentFragment().querySelector(s) === null; } catch { return false; }
    });
    const joined = valid.join(',');
    const add = (s) => {
      if (typeof s !== 'string') return;
      const t = s.trim();
      if (!t) return;
      into.add(t);
      into.add(t.replace(/\s+/g, ' '));
    };
    const fromElement = (el) => {
      if (['input', 'textarea', 'select'].includes(el.localName)) add(el.value);
      add(el.textContent);
      for (const attr of el.attributes) if (!PLAIN_ATTRS.has(attr.name)) add(attr.value);
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.nodeType === 3) add(n.data);
        else if (n.localName === 'input' || n.localName === 'textarea') add(n.value);
      }
    };
    const visit = (scope, depth) => {
      for (const el of scope.querySelectorAll(joined)) fromElement(el);
      if (depth >= 4) return;
      for (const el of scope.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot, depth + 1);
        if (el.localName === 'iframe' || el.localName === 'frame') {
          let doc = null;
          try {
            doc = el.contentDocument; // null (or a throw) for a cross-origin frame
          } catch {}
          if (doc) visit(doc, depth + 1);
        }
      }
    };
    visit(document, 0);
  };
  // Secret-shaped runs on the page (keys, cards) are secrets too, so their encoded forms are caught.
  const pageTokens = (into) => {
    if (!patterns.length || !globalThis.document) return;
    const texts = [document.documentElement ? document.documentElement.textContent || '' : ''];
    for (let w = document.createTreeWalker(document, 4), n = w.nextNode(); n; n = w.nextNode()) texts.push(n.data);
    for (const el of document.querySelectorAll('input, textarea')) texts.push(el.value || '');
    for (const text of texts) {
      for (const { re, check } of patterns) {
        re.lastIndex = 0;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          if (!m[0]) { re.lastIndex += 1; continue; }
          const digits = m[0].replace(/&#?[0-9A-Za-z]+;/g, '').replace(/[^0-9]/g, '');
          if (check && !luhn(digits)) continue;
          into.add(m[0].trim());
          into.add(m[0].replace(/[\s\u00a0\u2000-\u200b\u202f\u205f\u3000.-]+/g, ''));
          if (check) into.add(digits);
        }
        re.lastIndex = 0;
      }
    }
  };
  // Base64 of `t`'s whole 3-byte groups: found in the base64 of any text holding `t` at that alignment.
  const b64 = (t) => {
    const bytes = new TextEncoder().encode(t);
    return btoa(Array.from(bytes.slice(0, bytes.length - (bytes.length % 3)), (c) => String.fromCharCode(c)).join(''));
  };
  const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A string equal to a secret (trimmed) is replaced whole. A secret of 4+ characters is replaced wherever
  // it occurs in any case, URL-encoded, or base64-encoded (at each of the three alignments), and a long
  // one also wherever a piece of half its length (8+) occurs: the whole run that is part of the secret
  // goes. Shorter secrets only match whole strings: as substrings they would shred ordinary text.
  const makeScrub = (secrets) => {
    const exact = secrets;
    const pieces = new Map(); // lower-cased needle -> the lower-cased form it is a piece of
    const encoded = new Set(); // case-sensitive needles (base64)
    for (const secret of secrets) {
      if (secret.length < 4) continue;
      let url = ''; try { url = encodeURIComponent(secret); } catch {}
      for (const form of new Set([secret, url, url.replace(/%20/g, '+')])) {
        if (!form) continue;
        const low = form.toLowerCase();
        const w = Math.max(8, Math.ceil(low.length / 2));
        if (low.length < 12) pieces.set(low, low);
        else for (let i = 0; i + w <= low.length; i++) pieces.set(low.slice(i, i + w), low);
      }
      for (let k = 0; k < 3; k++) {
        const aligned = b64(secret.slice(k));
        if (aligned.length >= 8) for (const f of [aligned, aligned.replace(/\+/g, '-').replace(/\//g, '_')]) encoded.add(f);
      }
    }
    const wholes = [...new Set(pieces.values())];
    const pieceRe = pieces.size ? new RegExp([...pieces.keys()].sort((x, y) => y.length - x.length).map(esc).join('|'), 'g') : null;
    const encodedRe = encoded.size ? new RegExp([...encoded].sort((x, y) => y.length - x.length).map(esc).join('|'), 'g') : null;
    const cut = (s) => {
      let low = s.toLowerCase();
      if (low.length !== s.length) low = s;
      const spans = [];
      pieceRe.lastIndex = 0;
      for (let m = pieceRe.exec(low); m; m = pieceRe.exec(low)) {
        const part = (t) => wholes.some((x) => x.includes(t));
        let [a, b] = [m.index, m.index + m[0].length];
        while (a > 0 && part(low.slice(a - 1, b))) a -= 1;
        while (b < low.length && part(low.slice(a, b + 1))) b += 1;
        spans.push([a, b]);
        pieceRe.lastIndex = b;
      }
      if (!spans.length) return s;
      let out = '';
      let at = 0;
      for (const [a, b] of spans) {
        if (a < at) continue;
        out += s.slice(at, a) + REDACTED;
        self.count += 1;
        at = b;
      }
      return out + s.slice(at);
    };
    const self = {
      count: 0,
      text: (s) => {
        if (exact.has(s.trim())) {
          self.count += 1;
          return REDACTED;
        }
        let out = pieceRe ? cut(s) : s;
        if (encodedRe) out = out.replace(encodedRe, () => { self.count += 1; return REDACTED; });
        if (withPatterns) {
          for (const { re: p, check } of patterns) {
            p.lastIndex = 0;
            out = out.replace(p, (m) => {
              if (check && !luhn(m.replace(/&#?[0-9A-Za-z]+;/g, '').replace(/[^0-9]/g, ''))) return m;
              self.count += 1;
              return REDACTED;
            });
          }
        }
        return out;
      },
      scalar: (v) => {
        if (!exact.has(String(v))) return v;
        self.count += 1;
        return REDACTED;
      },
      keys: (o) => {
        const copy = {};
        let changed = false;
        for (const k of Object.keys(o)) {
          const nk = self.text(k);
          changed ||= nk !== k;
          copy[nk] = o[k];
        }
        return changed ? copy : o;
      },
    };
    return self;
  };

  const AsyncFunction = (async () => {}).constructor;
  let fn = given;
  if (!fn && extractor) {
    try {
      fn = new AsyncFunction('root', `${script}\n//# sourceURL=${SOURCE}`);
    } catch (err) {
      if (err instanceof EvalError) return { csp: String(err.message).split('\n')[0] };
      return { syntax: failure(err).thrown };
    }
  } else if (!fn) {
    try {
      // The newline lets a trailing // comment end before the parenthesis.
      fn = new AsyncFunction(`return (${script.replace(/[\s;]+$/, '')}\n)`);
    } catch (err) {
      if (err instanceof EvalError) return { csp: String(err.message).split('\n')[0] };
      if (!(err instanceof SyntaxError)) return failure(err);
      try {
        fn = new AsyncFunction(script);
      } catch (err2) {
        return failure(err2);
      }
    }
  }
  let root = globalThis.document;
  const secrets = new Set();
  for (const v of (policy && policy.values) || []) if (typeof v === 'string' && v.trim()) secrets.add(v.trim());
  if (policy) pageTokens(secrets);
  if (rules) collectSecrets(secrets);
  if (extractor) {
    if (extractor.root !== null && extractor.root !== undefined) {
      const shown = JSON.stringify(extractor.root);
      try {
        root = document.querySelector(extractor.root);
      } catch (err) {
        return { bad_root: { invalid: true, message: `css_selector ${shown} is not a valid CSS selector: ${err.message}` } };
      }
      if (!root) return { bad_root: { invalid: false, message: `css_selector ${shown} matches nothing on this page` } };
    }
    // Secrets are read before and after the run: the script may clear a field it has already read.
    collectSecrets(secrets);
  }
  let value;
  let threw = false;
  try {
    value = await fn.call(globalThis, root);
  } catch (err) {
    threw = true;
    value = err;
  }
  if (policy) {
    collectSecrets(secrets);
    if (secrets.size || patterns.length) scrub = makeScrub(secrets);
  }
  if (threw) return failure(value);
  if (extractor && (value === undefined || value === null)) return { empty: String(value) };

  const describeNode = (node) => {
    if (node.nodeType === 1) {
      const id = node.id ? `#${node.id}` : '';
      const cls = typeof node.className === 'string' && node.className.trim()
        ? `.${node.className.trim().split(/\s+/).slice(0, 3).join('.')}` : '';
      return `[element <${node.localName}${id}${cls}>]`;
    }
    if (node.nodeType === 3) return `[text ${JSON.stringify(node.data.slice(0, 80))}]`;
    if (node.nodeType === 9) return `[document ${node.URL}]`;
    return `[node ${node.nodeName}]`;
  };
  const special = (v) => {
    if (typeof v.nodeType === 'number' && typeof v.nodeName === 'string') return describeNode(v);
    if (v === v.window) return '[window]';
    if (v instanceof NodeList || v instanceof HTMLCollection) return Array.from(v);
    if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack || '' };
    if (v instanceof Map) return { '[Map]': Array.from(v.entries()) };
    if (v instanceof Set) return { '[Set]': Array.from(v.values()) };
    if (v instanceof RegExp) return String(v);
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      // Only the items that will be shown are copied: a typed array may hold hundreds of millions.
      const head = Array.from(v.length > limit ? v.subarray(0, limit) : v, (x) => (typeof x === 'bigint' ? String(x) : x));
      if (v.length > limit) {
        capped = true;
        head.push(`[${v.length - limit} more items not shown: ${v.length} in all]`);
      }
      return head;
    }
    if (v instanceof ArrayBuffer) return `[ArrayBuffer ${v.byteLength} bytes]`;
    if (v instanceof Promise) return '[Promise]';
    if (v instanceof WeakMap || v instanceof WeakSet) return `[${v.constructor.name}]`;
    return v;
  };
  // Ancestors of the value being written: a reference back to one of them is a cycle.
  const stack = [];
  let capped = false;
  const cap = (v) => {
    if (!Array.isArray(v) || v.length <= limit) return v;
    capped = true;
    return [...v.slice(0, limit), `[${v.length - limit} more items not shown: ${v.length} in all]`];
  };
  const plain = (v) => {
    switch (typeof v) {
      case 'undefined': return null;
      case 'bigint': return v.toString();
      case 'function': return `[function ${v.name || 'anonymous'}]`;
      case 'symbol': return v.toString();
      default: return v;
    }
  };
  function replacer(key, v) {
    if (v === null || typeof v !== 'object') {
      const out = plain(v);
      if (!scrub) return out;
      if (typeof out === 'string') return scrub.text(out);
      return typeof out === 'number' ? scrub.scalar(out) : out;
    }
    const at = stack.lastIndexOf(this);
    if (at !== -1) stack.length = at + 1;
    if (stack.includes(v)) return '[circular]';
    let out;
    try {
      out = special(v);
      if (!ArrayBuffer.isView(v)) out = cap(out); // typed arrays were cut while copied
    } catch {
      return '[inaccessible object]'; // e.g. a cross-origin window
    }
    if (scrub && typeof out === 'string') return scrub.text(out);
    if (scrub && out !== null && typeof out === 'object' && !Array.isArray(out)) out = scrub.keys(out);
    if (out !== null && typeof out === 'object') {
      if (out !== v) stack.push(v);
      stack.push(out);
    }
    return out;
  }
  try {
    let text = JSON.stringify(value, replacer);
    // The patterns run string by string only when the whole text shows a match: most values have none.
    if (text !== undefined && scrub && patterns.length && patternsHit(text)) {
      withPatterns = true;
      scrub.count = 0;
      stack.length = 0;
      capped = false;
      text = JSON.stringify(value, replacer);
    }
    if (text !== undefined && text.length > maxChars) return { too_large: text.length };
    const json = text === undefined ? 'null' : text;
    if (extractor) {
      const url = JSON.stringify(globalThis.location ? globalThis.location.href : null);
      return `{"result":${json},"redacted":${scrub ? scrub.count : 0},"url":${url}}`;
    }
    const redacted = rules && scrub && scrub.count ? `,"redacted":${scrub.count}` : '';
    return `{"success":true,"result":${json}${capped ? ',"capped":true' : ''}${redacted}}`;
  } catch (err) {
    return failure(new Error(`the result could not be serialized: ${err && err.message}`));
  }
}
