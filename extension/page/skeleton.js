// A compact, cleaned copy of one page region's HTML for an agent writing its own extractor: no
// scripts, styles, comments or SVG internals, no data: URIs, only the attributes a selector uses,
// long text cut, and repeated siblings after the first two replaced by a count. Secrets are
// [REDACTED] (a sensitive subtree is not entered; no input's value is ever written). It stops at a
// byte budget, closing the open tags, and says so.
(() => {
  const agent = globalThis.__tabpilotAgent.use('skeleton', {
    needs: ['REDACTED', 'isSecretRoot', 'isSensitive', 'scrubText'],
    provides: ['skeleton'],
  });
  const HTML = 'http://www.w3.org/1999/xhtml';
  const DROP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'iframe', 'object', 'embed']);
  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'source', 'track', 'wbr']);
  const KEEP = ['id', 'class', 'href', 'src', 'name', 'type', 'role', 'aria-label', 'alt', 'rel', 'for', 'colspan', 'datetime'];
  const MAX_TEXT = 80;
  const MAX_ATTR = 80;
  const MAX_DATA = 40;
  const KEPT_REPEATS = 2;

  const escText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const cut = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);

  function utf8(s) {
    let n = s.length;
    for (let i = 0; i < s.length; i += 1) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) n += c > 0x7ff && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
    }
    return n;
  }

  function attrs(el) {
    let out = '';
    for (const name of KEEP) {
      let v = el.getAttribute(name);
      if (v === null) continue;
      if ((name === 'src' || name === 'href') && v.startsWith('data:')) v = 'data:…';
      out += ` ${name}="${escAttr(cut(v, MAX_ATTR))}"`;
    }
    let data = 0;
    for (const a of el.attributes) {
      if (!a.name.startsWith('data-') || a.value.length > MAX_DATA || a.value.startsWith('data:') || data >= 3) continue;
      out += ` ${a.name}="${escAttr(a.value)}"`;
      data += 1;
    }
    return out;
  }

  function signature(el) {
    const cls = el.getAttribute('class');
    return cls ? `${el.localName}.${cls.trim().split(/\s+/).join('.')}` : el.localName;
  }

  /** `root` as cleaned HTML of at most `budget` UTF-8 bytes: {html, bytes, truncated}. */
  agent.skeleton = (root, budget) => {
    const parts = [];
    const open = []; // closing tags owed, innermost last
    let used = 0;
    let owed = 0;
    let full = false;
    let closing = '';
    const emit = (s) => {
      if (full) return false;
      const n = utf8(s);
      if (used + n + owed + 48 > budget) {
        full = true;
        closing = open.slice().reverse().join('');
        return false;
      }
      parts.push(s);
      used += n;
      return true;
    };
    function element(el) {
      const tag = el.localName;
      if (el.namespaceURI !== HTML) {
        if (tag === 'svg') emit(`<svg${attrs(el)}></svg>`); // the drawing itself says nothing
        return;
      }
      if (DROP.has(tag)) return;
      if (el === root ? agent.isSensitive(el) : agent.isSecretRoot(el)) {
        // Name and type tell a selector what it is; the content (and any other attribute) is the secret.
        const named = ['id', 'class', 'name', 'type'].map((a) => (el.hasAttribute(a) ? ` ${a}="${escAttr(cut(el.getAttribute(a), MAX_ATTR))}"` : '')).join('');
        emit(VOID.has(tag) ? `<${tag}${named}>` : `<${tag}${named}>${agent.REDACTED}</${tag}>`);
        return;
      }
      if (!emit(`<${tag}${attrs(el)}>`) || VOID.has(tag)) return;
      const close = `</${tag}>`;
      open.push(close);
      owed += close.length;
      children(el);
      open.pop();
      owed -= close.length;
      emit(close);
    }

    function children(el) {
      const counts = new Map();
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) counts.set(signature(c), (counts.get(signature(c)) || 0) + 1);
      const shown = new Map();
      for (let n = el.firstChild; n && !full; n = n.nextSibling) {
        if (n.nodeType === 3) {
          const text = n.data.replace(/\s+/g, ' ');
          if (text.trim()) emit(escText(cut(text, MAX_TEXT)));
        } else if (n.nodeType === 1) {
          const sig = signature(n);
          const k = (shown.get(sig) || 0) + 1;
          shown.set(sig, k);
          if (k <= KEPT_REPEATS) element(n);
          else if (k === KEPT_REPEATS + 1) emit(`<!-- ${counts.get(sig) - KEPT_REPEATS} more ${sig.replace(/--/g, '- -')} -->`);
        }
      }
    }

    element(root);
    let html = parts.join('');
    if (full) html += `${closing}<!-- cut at the ${budget}-byte budget -->`;
    html = agent.scrubText(html);
    return { html, bytes: utf8(html), truncated: full };
  };
})();
