// Draft field schemas for `suggest`: given the rows of one repeated structure, which elements inside a
// row carry its data, a selector for each that the row's own querySelector finds (checked on every
// sampled row, so `extract` reads the very element looked at here), and a field name a person would
// pick (a table's header, a dl's term, a class name, or what the element is).
(() => {
  const agent = globalThis.__tabpilotAgent.use('suggest_fields', {
    needs: ['numbers', 'redactedText'],
    provides: ['suggestFields'],
  });
  const HTML = 'http://www.w3.org/1999/xhtml';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'canvas', 'object', 'select', 'option']);
  const INLINE = new Set(['b', 'i', 'em', 'strong', 'u', 'mark', 'abbr', 'sup', 'sub', 'small', 'code', 'kbd', 'br', 'wbr']);
  // Classes that say what state a row is in, not what it is; and generated ones (css-1x2y3z).
  const STATE = /^(active|selected|current|odd|even|first|last|open|closed|hidden|visible|disabled|enabled|expanded|collapsed|highlighted?|featured|new|clearfix|row|col|is-.*|has-.*|js-.*)$/i;
  const GENERATED = /\d{3,}|^(css|sc|jsx|emotion|svelte)-|__[A-Za-z0-9]*\d[A-Za-z0-9]*$/;
  // One number grammar with the host's `| number` (generated into page/numbers.js): an identifier
  // such as "ACC-1001" or "SKU-000005" stays text.
  const NUMBER = agent.numbers.WHOLE;
  const SAMPLED = 12;
  const MAX_FIELDS = 12;
  const MAX_NODES = 300; // per row: a "row" bigger than this is a page section, not a record

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();

  /** Classes worth putting in a selector: stable, descriptive, in document order. */
  function stableClasses(el) {
    const out = [];
    for (const c of el.classList) if (!STATE.test(c) && !GENERATED.test(c) && c.length <= 40) out.push(c);
    return out;
  }

  /** What an element is, for grouping siblings: tag plus its stable classes, sorted. */
  function signature(el) {
    const classes = stableClasses(el).sort();
    return classes.length ? `${el.localName}.${classes.join('.')}` : el.localName;
  }

  /** A field name from free text: lower case, words joined with _, at most 40 characters. */
  function slug(text) {
    const s = normalise(text).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_+|_+$/g, '');
    return s.slice(0, 40).replace(/_+$/, '');
  }

  function ownText(el) {
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && n.data.trim()) return true;
    return false;
  }

  /** The shortest selector that, run from `row`, finds `el` first; a `:scope >` path when none does. */
  function selectorIn(el, row) {
    if (el === row) return ':scope';
    const tag = el.localName;
    const tries = [];
    for (const c of stableClasses(el)) tries.push(`.${CSS.escape(c)}`, `${tag}.${CSS.escape(c)}`);
    tries.push(tag);
    for (const t of tries) if (row.querySelector(t) === el) return t;
    const steps = [];
    for (let cur = el; cur && cur !== row; cur = cur.parentElement) {
      let k = 1;
      for (let s = cur.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === cur.localName) k += 1;
      let only = k === 1;
      for (let s = cur.nextElementSibling; only && s; s = s.nextElementSibling) if (s.localName === cur.localName) only = false;
      steps.unshift(only ? cur.localName : `${cur.localName}:nth-of-type(${k})`);
    }
    return `:scope > ${steps.join(' > ')}`;
  }

  /** A name for the element's data: its term (dt), class, or what kind of element it is. */
  function nameOf(el, row, text) {
    const prev = el.previousElementSibling;
    if (el.localName === 'dd' && prev && prev.localName === 'dt') {
      const term = slug(agent.redactedText(prev));
      if (term) return term;
    }
    // A bare link or span that is all its parent holds (h3.title > a) is named after the parent.
    while (!stableClasses(el).length && el !== row && el.parentElement !== row && el.parentElement.childElementCount === 1 && !ownText(el.parentElement)) {
      el = el.parentElement;
    }
    const rowWords = new Set(stableClasses(row).flatMap((c) => c.toLowerCase().split(/[-_]+/)));
    for (const c of stableClasses(el)) {
      // product-card__title -> title: the row's own words add nothing.
      const words = c.toLowerCase().split(/[-_]+/).filter((w) => w && !rowWords.has(w));
      if (words.length) return slug(words.join('_'));
    }
    if (/^h[1-6]$/.test(el.localName)) return 'title';
    if (el.localName === 'time') return 'date';
    if (text && NUMBER.test(text) && agent.numbers.CURRENCY.test(text)) return 'price';
    return { a: 'link', img: 'image', p: 'text', li: 'item', td: 'cell', span: 'text', div: 'text' }[el.localName] || el.localName;
  }

  /** The image's real address: a lazy loader's data-src when src is a placeholder data: URI. */
  function imageAttr(img) {
    // A lazy loader's attribute is there on every image, loaded or not: the same field in every row.
    for (const name of ['data-src', 'data-lazy-src', 'data-original']) if (img.hasAttribute(name)) return name;
    const src = img.getAttribute('src') || '';
    return src && !src.startsWith('data:') ? 'src' : null;
  }

  /** Content-bearing elements of one row, each with how to read it, in document order. */
  function contents(row) {
    const found = [];
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_ELEMENT, {
      acceptNode: (n) => (n.namespaceURI !== HTML || SKIP.has(n.localName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    let seen = 0;
    const lists = new Set();
    for (let el = row; el && seen < MAX_NODES; el = walker.nextNode(), seen += 1) {
      // Items of a list inside a row (tags, badges) are one field with every item: `ul li | all`.
      const list = el.localName === 'li' && el !== row ? el.parentElement : null;
      if (list && list !== row) {
        if (!lists.has(list)) found.push({ el: list, take: 'text', all: true });
        lists.add(list);
        continue;
      }
      if (list === null && lists.size && Array.from(lists).some((l) => l.contains(el))) continue;
      const texty = ownText(el);
      // Bold and friends inside a text element are part of its text, not a field of their own.
      if (texty && !(INLINE.has(el.localName) && el !== row && !el.classList.length)) found.push({ el, take: 'text' });
      if (el.localName === 'a' && el.hasAttribute('href')) found.push({ el, take: 'url', attr: null });
      if (el.localName === 'img') {
        const attr = imageAttr(el);
        if (attr) found.push({ el, take: 'attr', attr });
      }
    }
    return found;
  }

  /** Keep fields found in at least half the rows whose text varies; name them; spot numbers. */
  function finish(stats, sampled) {
    const names = new Map();
    const fields = [];
    const converts = {};
    for (const f of stats.values()) {
      if (f.count * 2 < sampled) continue;
      const distinct = new Set(f.values).size;
      // A label ("Price:") or a button; a table's column has a header saying it is data.
      if (f.take === 'text' && sampled >= 3 && distinct <= 1 && !f.column) continue;
      const texts = f.values.filter((v) => v);
      if (f.take === 'text' && texts.length === 0) continue;
      let base = f.name;
      if (f.take === 'url') base = f.textName ? `${f.textName}_url` : 'url';
      const n = (names.get(base) || 0) + 1;
      names.set(base, n);
      const name = n === 1 ? base : `${base}_${n}`;
      fields.push({ name, selector: f.selector, take: f.take, attr: f.attr || null, all: Boolean(f.all), hits: f.count });
      if (f.take === 'text' && !f.all && texts.length && texts.filter((v) => NUMBER.test(v)).length >= texts.length * 0.8) converts[name] = 'number';
      if (fields.length >= MAX_FIELDS) break;
    }
    return { fields, converts };
  }

  /** Fields of generic rows (list items, cards, repeated divs). */
  function generic(rows) {
    const sample = Array.from(rows).slice(0, SAMPLED);
    const stats = new Map();
    for (const row of sample) {
      const textNames = new Map();
      for (const { el, take, attr, all } of contents(row)) {
        const selector = all ? `${selectorIn(el, row)} > li` : selectorIn(el, row);
        const key = `${selector}|${take}|${attr || ''}`;
        let f = stats.get(key);
        const text = take === 'text' ? agent.redactedText(el) : null;
        if (!f) {
          f = { selector, take, attr, all, count: 0, values: [], name: nameOf(el, row, text), textName: null };
          stats.set(key, f);
        }
        if (take === 'text') textNames.set(el, f.name);
        // A link's address is named after its own text field, or its heading's (h3 > a).
        if (take === 'url') f.textName = f.textName || textNames.get(el) || textNames.get(el.parentElement) || null;
        f.count += 1;
        f.values.push(take === 'text' ? text : el.getAttribute(attr || 'href'));
      }
    }
    return finish(stats, sample.length);
  }

  /** Header names of a table, by column index (0-based), from thead or a first row of th cells. */
  function headers(table) {
    const head = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1] : null;
    const first = table.rows[0];
    const row = head || (first && first.cells.length && Array.from(first.cells).every((c) => c.localName === 'th') ? first : null);
    const out = [];
    if (row) for (const cell of row.cells) out.push(slug(agent.redactedText(cell)));
    return out;
  }

  /** Fields of table rows: one per column, named by its header; links and images add a field. */
  function table(rows) {
    const sample = Array.from(rows).slice(0, SAMPLED);
    const names = headers(sample[0].closest('table'));
    const stats = new Map();
    const add = (key, make, value) => {
      let f = stats.get(key);
      if (!f) stats.set(key, (f = { ...make, count: 0, values: [] }));
      f.count += 1;
      f.values.push(value);
    };
    for (const row of sample) {
      Array.from(row.children).forEach((cell, j) => {
        const own = stableClasses(cell).find((c) => row.querySelector(`${cell.localName}.${CSS.escape(c)}`) === cell);
        const selector = own ? `${cell.localName}.${CSS.escape(own)}` : `${cell.localName}:nth-child(${j + 1})`;
        if (row.querySelector(selector) !== cell) return;
        const name = names[j] || (own ? slug(own) : `column_${j + 1}`);
        add(`${selector}|text`, { selector, take: 'text', name, column: Boolean(names[j]) }, agent.redactedText(cell));
        const link = cell.querySelector('a[href]');
        if (link) add(`${selector}|url`, { selector: `${selector} a`, take: 'url', name, textName: name }, link.getAttribute('href'));
        const img = cell.querySelector('img');
        const attr = img && imageAttr(img);
        if (attr) add(`${selector}|img`, { selector: `${selector} img`, take: 'attr', attr, name: `${name}_image` }, img.getAttribute(attr));
      });
    }
    return finish(stats, sample.length);
  }

  /** Fields of a dl's terms: the term itself and the definition right after it (`+ dd`). */
  function definitions(terms) {
    const fields = [
      { name: 'term', selector: ':scope', take: 'text', attr: null },
      { name: 'definition', selector: '+ dd', take: 'text', attr: null },
    ];
    const sample = Array.from(terms).slice(0, SAMPLED);
    const dd = (t) => (t.nextElementSibling && t.nextElementSibling.localName === 'dd' ? t.nextElementSibling : null);
    const linked = sample.filter((t) => dd(t) && dd(t).querySelector('a[href]')).length;
    if (linked * 2 >= sample.length) fields.push({ name: 'definition_url', selector: '+ dd a', take: 'url', attr: null });
    if (sample.filter((t) => t.querySelector('a[href]')).length * 2 >= sample.length) fields.push({ name: 'term_url', selector: 'a', take: 'url', attr: null });
    const values = sample.map((t) => (dd(t) ? agent.redactedText(dd(t)) : ''));
    const converts = values.length && values.every((v) => NUMBER.test(v)) ? { definition: 'number' } : {};
    return { fields, converts };
  }

  agent.suggestFields = { stableClasses, signature, slug, generic, table, definitions, NUMBER };
})();
