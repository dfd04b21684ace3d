// The page's main content as small, clean HTML for the host to turn into markdown. One walk over the
// live DOM writes only what a reader needs (headings, text, lists, tables, code, links, images) and
// leaves out navigation, page header and footer, asides, hidden parts, dialogs, cookie banners and
// form controls; attributes other than href/src/alt and a code block's language never leave. Walking
// the live DOM (not a clone) is what lets hidden parts be recognised by their computed style.
// What a shadow root (open or closed) shows is read where the page shows it: a host's root in place
// of its light children, and each slot's assigned nodes in place of the slot.
// Secrets: an element matching the redaction selectors comes out as [REDACTED]; input values are
// never read.
(() => {
  const agent = globalThis.__tabpilotAgent.use('main_content', {
    needs: ['PageError', 'REDACTED', 'isSensitive', 'isVisible', 'maskPatterns', 'query', 'scrubText', 'secretRoots', 'shadowRootOf', 'treesOf'],
    provides: ['commands.main_content'],
  });
  const SKIP = new Set([
    'script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'frame', 'frameset',
    'object', 'embed', 'video', 'audio', 'map', 'nav', 'aside', 'dialog', 'button', 'input', 'select',
    'textarea', 'option', 'datalist', 'output', 'progress', 'meter', 'head', 'link', 'meta', 'title',
  ]);
  const BLOCK = new Set([
    'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'blockquote', 'hr',
    'figure', 'figcaption', 'caption',
  ]);
  const INLINE = new Set([
    'em', 'i', 'strong', 'b', 'kbd', 'samp', 'var', 'sub', 'sup', 's', 'del', 'ins', 'mark', 'q', 'u', 'cite',
  ]);
  const UNWRAP = new Set(['span', 'label', 'small', 'abbr', 'time', 'font', 'bdi', 'bdo', 'data', 'dfn', 'wbr', 'slot']);
  const CONTAINERS = new Set(['div', 'section', 'article', 'main', 'header', 'footer', 'form', 'fieldset', 'details', 'center', 'body']);
  const SKIP_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar', 'toolbar', 'tablist']);
  const COOKIE = /cookie|consent|gdpr|onetrust|cookiebot|cmp-|didomi|truste/i;
  const CONTENT = 'p, pre, table, li, dd, blockquote, h1, h2, h3, h4, h5, h6';
  const CHROME = 'nav, aside, header, footer, dialog, [role=navigation], [role=complementary], [role=banner], [role=contentinfo]';
  const MAX_SRC = 500;
  // Content tags that a page rarely hides by tag alone: bare ones (no id, class or style) are taken
  // as visible when their parent is, which spares checkVisibility on most elements (on a 1 MB page
  // with 50,000 elements, checking every one costs ~120 ms).
  const PLAIN = new Set([
    'p', 'li', 'tr', 'td', 'th', 'thead', 'tbody', 'ul', 'ol', 'dl', 'dt', 'dd', 'em', 'i', 'strong', 'b',
    'code', 'a', 'span', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'br', 'img', 'kbd',
    'sub', 'sup', 'small', 'mark', 'q', 'cite', 'abbr', 'time', 'caption', 'figure', 'figcaption', 'hr',
  ]);
  const bare = (el, tag) => PLAIN.has(tag) && !el.id && el.classList.length === 0 && !el.hasAttribute('style');

  const ENTITY = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
  // Most text has nothing to escape: the test is cheaper than a replace on every text node.
  const escapeText = (s) => (/[&<>]/.test(s) ? s.replace(/[&<>]/g, (c) => ENTITY[c]) : s);
  const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

  /** Text of `el`, verbatim (for code), with secret subtrees as [REDACTED]. */
  function verbatim(el, secrets, rooted) {
    if (!rooted && secrets.size === 0) return el.textContent || ''; // no root on the page, nothing to mask
    let out = '';
    // What the block shows: a host's shadow root in place of its children, a slot's nodes in its place.
    const walk = (parent) => {
      for (const n of Array.isArray(parent) ? parent : parent.childNodes) {
        if (n.nodeType === 3) out += n.data;
        else if (n.nodeType !== 1) continue;
        else if (secrets.has(n)) out += agent.REDACTED;
        else walk(n.localName === 'slot' ? slotted(n) : (rooted && agent.shadowRootOf(n)) || n);
      }
    };
    walk((rooted && agent.shadowRootOf(el)) || el);
    return out;
  }

  function language(pre) {
    const code = pre.querySelector('code');
    for (const el of code ? [code, pre] : [pre]) {
      const found = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(el.className || '');
      if (found) return found[1];
      const named = el.getAttribute('data-lang') || el.getAttribute('data-language');
      if (named) return named;
    }
    return '';
  }

  /** A page-level header or footer (the banner and contentinfo landmarks), not an article's own. */
  const pageLevel = (el) => el.parentElement?.closest('article, main, section, aside, nav, [role=main], [role=article]') == null;

  function cookieBanner(el) {
    const name = `${el.id} ${typeof el.className === 'string' ? el.className : ''} ${el.getAttribute('aria-label') || ''}`;
    if (!COOKIE.test(name)) return false;
    if (/banner|notice|bar|popup|modal|dialog|overlay|wall|consent/i.test(name)) return true;
    const position = getComputedStyle(el).position;
    return position === 'fixed' || position === 'sticky';
  }

  function leftOut(el, tag, lenient) {
    if (SKIP.has(tag)) return true;
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    const role = el.getAttribute('role');
    if (role && SKIP_ROLES.has(role)) return true;
    if ((tag === 'header' || tag === 'footer') && pageLevel(el)) return true;
    if (el.id || el.className) {
      if (cookieBanner(el)) return true;
    }
    // A slot has no box of its own (display: contents), so checkVisibility calls it hidden.
    if (tag === 'slot') return false;
    // A closed <details> hides its body from checkVisibility, yet it is content a reader can open.
    if (lenient || bare(el, tag) || typeof el.checkVisibility !== 'function') return false;
    return !el.checkVisibility({ visibilityProperty: true });
  }

  class Writer {
    constructor(secrets, maxChars, rooted) {
      this.parts = [];
      this.size = 0;
      this.secrets = secrets;
      this.rooted = rooted; // the page has a shadow root: a code block's text is what its roots show
      this.maxChars = maxChars;
      this.truncated = false;
      this.here = location.href.split('#')[0];
    }

    push(s) {
      this.parts.push(s);
      this.size += s.length;
      if (this.size > this.maxChars) this.truncated = true;
    }

    children(el, lenient) {
      this.nodes(el.localName === 'slot' ? slotted(el) : agent.shadowRootOf(el) || el, lenient);
    }

    /** The child nodes of `parent` (an element, a root, or an array of nodes a slot shows). */
    nodes(parent, lenient) {
      for (const n of Array.isArray(parent) ? parent : parent.childNodes) {
        if (this.truncated) break;
        if (n.nodeType === 3) this.push(escapeText(n.data));
        else if (n.nodeType === 1) this.element(n, lenient);
      }
    }

    wrap(tag, el, lenient, attrs = '') {
      this.push(`<${tag}${attrs}>`);
      this.children(el, lenient);
      this.push(`</${tag}>`);
    }

    element(el, lenient = false) {
      const tag = el.localName;
      if (leftOut(el, tag, lenient)) return;
      if (this.secrets.has(el)) {
        this.push(BLOCK.has(tag) || CONTAINERS.has(tag) ? `<p>${agent.REDACTED}</p>` : agent.REDACTED);
        return;
      }
      this.write(el, tag, lenient);
    }

    write(el, tag, lenient) {
      if (BLOCK.has(tag) || INLINE.has(tag)) return this.wrap(tag, el, lenient);
      if (UNWRAP.has(tag)) return this.children(el, lenient);
      switch (tag) {
        case 'br': return this.push('<br>');
        case 'pre': {
          const lang = language(el);
          const cls = lang ? ` class="language-${escapeAttr(lang)}"` : '';
          return this.push(`<pre><code${cls}>${escapeText(verbatim(el, this.secrets, this.rooted))}</code></pre>`);
        }
        case 'code': return this.push(`<code>${escapeText(verbatim(el, this.secrets, this.rooted))}</code>`);
        case 'a': return this.link(el, lenient);
        case 'img': return this.image(el);
        case 'table': return this.table(el, lenient);
        case 'summary': return this.wrap('p', el, lenient);
        case 'details': return this.wrap('div', el, lenient || !el.open);
        default:
          if (CONTAINERS.has(tag)) return this.wrap('div', el, lenient);
          // Unknown and custom elements: inline ones are unwrapped, the rest kept as blocks.
          if (getComputedStyle(el).display.startsWith('inline')) return this.children(el, lenient);
          return this.wrap('div', el, lenient);
      }
    }

    link(el, lenient) {
      const raw = el.getAttribute('href');
      let href = raw === null || /^\s*javascript:/i.test(raw) ? '' : el.href;
      if (href.startsWith(`${this.here}#`)) href = href.slice(this.here.length);
      if (!href) return this.children(el, lenient);
      return this.wrap('a', el, lenient, ` href="${escapeAttr(href)}"`);
    }

    image(el) {
      const alt = el.getAttribute('alt') || '';
      const src = el.currentSrc || el.src || '';
      // Inline data images are bytes, not content; a very long address is noise for a reader.
      if (!src || src.startsWith('data:') || src.length > MAX_SRC) {
        if (alt) this.push(escapeText(alt));
        return;
      }
      this.push(`<img alt="${escapeAttr(alt)}" src="${escapeAttr(src)}">`);
    }

    /** Rows in order; the first row heads the table when it has no <thead>, so GFM has a header. */
    table(el, lenient) {
      const rows = [...el.rows].filter((r) => !leftOut(r, 'tr', lenient));
      if (rows.length === 0) return;
      this.push('<table>');
      if (el.caption && !leftOut(el.caption, 'caption', lenient)) this.wrap('caption', el.caption, lenient);
      rows.forEach((row, k) => {
        if (k === 0) this.push('<thead>');
        if (k === 1) this.push('<tbody>');
        this.push('<tr>');
        const rowSecret = this.secrets.has(row) || this.secrets.has(row.parentElement);
        for (const cell of row.cells) {
          if (rowSecret || this.secrets.has(cell)) this.push(`<td>${agent.REDACTED}</td>`);
          else this.wrap(k === 0 ? 'th' : 'td', cell, lenient, cell.colSpan > 1 ? ` colspan="${cell.colSpan}"` : '');
        }
        this.push('</tr>');
        if (k === 0) this.push('</thead>');
      });
      this.push(rows.length > 1 ? '</tbody></table>' : '</table>');
    }
  }

  /** What slot `el` shows: the light nodes assigned to it (through nested slots), else its own children. */
  function slotted(el) {
    const assigned = typeof el.assignedNodes === 'function' ? el.assignedNodes({ flatten: true }) : [];
    return assigned.length ? assigned : el;
  }

  /** The deepest element holding most of the page's readable text (when there is no <main>). */
  function densest() {
    const sums = new Map();
    let total = 0;
    for (const block of document.body.querySelectorAll(CONTENT)) {
      if (block.closest(CHROME) || block.parentElement?.closest(CONTENT)) continue;
      const len = (block.textContent || '').length;
      total += len;
      for (let el = block.parentElement; el && el !== document.body; el = el.parentElement) {
        sums.set(el, (sums.get(el) || 0) + len);
      }
    }
    let best = document.body;
    let depth = 0;
    for (const [el, sum] of sums) {
      if (sum < total * 0.75) continue;
      let d = 0;
      for (let p = el; p; p = p.parentElement) d += 1;
      if (d > depth) [best, depth] = [el, d];
    }
    return best;
  }

  function pickRoot() {
    const mains = [...document.querySelectorAll('main, [role=main]')].filter((el) => agent.isVisible(el));
    if (mains.length) return mains.reduce((a, b) => ((b.textContent || '').length > (a.textContent || '').length ? b : a));
    const articles = [...document.querySelectorAll('article')].filter((el) => agent.isVisible(el));
    if (articles.length === 1) return articles[0];
    return densest();
  }

  agent.commands.main_content = ({ css_selector: cssSelector, max_bytes: maxBytes }) => {
    let root;
    if (typeof cssSelector === 'string' && cssSelector.trim()) {
      root = agent.query(cssSelector);
      if (!root) throw new agent.PageError('element_not_found', `no element matches ${JSON.stringify(cssSelector)}`, { selector: cssSelector });
    } else {
      root = document.body ? pickRoot() : document.documentElement;
    }
    const trees = [...agent.treesOf(document)];
    const secrets = new Set();
    for (const tree of trees) for (const el of agent.secretRoots(tree)) secrets.add(el);
    const writer = new Writer(secrets, Number.isInteger(maxBytes) && maxBytes > 0 ? maxBytes : 8 * 1024 * 1024, trees.length > 1);
    if (agent.isSensitive(root)) writer.push(`<p>${agent.REDACTED}</p>`);
    else writer.write(root, root.localName, false);
    // Last line of defence: a secret's text quoted elsewhere on the page is replaced as well.
    // and secret-shaped text (the pattern list) is masked.
    const html = secrets.size ? agent.scrubText(writer.parts.join('')) : agent.maskPatterns(writer.parts.join(''));
    const out = { html, title: agent.scrubText(document.title), url: location.href, truncated: writer.truncated };
    return { json: JSON.stringify(out) };
  };
})();
