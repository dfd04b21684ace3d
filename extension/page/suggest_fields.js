// Draft field schemas for `suggest`: given the rows of one repeated structure, which elements inside a
// row carry its data, a selector for each that the row's own querySelector finds (checked on every
// sampled row, so `extract` reads the very element looked at here), and a field name a person would
// pick (a table's header, a dl's term, a class name, or what the element is).
(() => {
  const agent = globalThis.__tabpilotAgent.use('suggest_fields', {
    needs: ['isVisible', 'numbers', 'redactedText'],
    provides: ['suggestFields'],
  });
  const HTML = 'http://www.w3.org/1999/xhtml';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'canvas', 'object', 'select', 'option']);
  const INLINE = new Set(['b', 'i', 'em', 'strong', 'u', 'mark', 'abbr', 'sup', 'sub', 'small', 'code', 'kbd', 'br', 'wbr']);
  // Classes that say what state a row is in, not what it is; and generated ones (css-1x2y3z).
  const STATE = /^(active|selected|current|odd|even|first|last|open|closed|hidden|visible|disabled|enabled|expanded|collapsed|highlighted?|featured|new|clearfix|row|col|is-.*|has-.*|js-.*)$/i;
  const GENERATED = /\d{3,}|^(css|sc|jsx|emotion|svelte)-|__[A-Za-z0-9]*\d[A-Za-z0-9]*$/;
  const ROW_STATE = new Set(['odd', 'even', 'alt', 'alternate', 'zebra', 'stripe', 'striped', 'first', 'last',
    'active', 'selected', 'current', 'focus', 'focused', 'hover', 'hovered', 'highlight', 'highlighted', 'expanded',
    'collapsed', 'open', 'closed', 'checked', 'disabled', 'loading', 'dirty', 'new', 'visited', 'pinned']);
  // Attributes that name a grid's column on its header cell and on each row's cell alike.
  const COLUMN_KEYS = ['col-id', 'tabulator-field', 'data-field', 'data-column', 'data-col', 'data-dash-column',
    'data-column-id', 'data-key', 'aria-colindex'];
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

  /** A record's classes that say what it is: its stable classes less those that mark a parity or a
   * state (ag-row-odd, tabulator-row-even, row-odd, is-selected): zebra rows are one structure. */
  function rowClasses(el) {
    return stableClasses(el).filter((c) => !c.toLowerCase().split(/[-_]+/).some((w) => ROW_STATE.has(w)));
  }

  /** What an element is, for grouping siblings: tag plus its row classes, sorted. */
  function signature(el) {
    const classes = rowClasses(el).sort();
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
      if ((f.take === 'text' || f.label) && sampled >= 3 && distinct <= 1 && !(f.column && f.take === 'text')) continue;
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

  /** A table's own header cells by column index (0-based, colspans spread), from thead or a first
   * row of th cells. */
  function tableHeads(table) {
    const head = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1] : null;
    const first = table.rows[0];
    const row = head || (first && first.cells.length && Array.from(first.cells).every((c) => c.localName === 'th') ? first : null);
    const out = [];
    if (row) for (const cell of row.cells) for (let k = 0; k < (cell.colSpan || 1); k += 1) out.push(cell);
    return out;
  }

  /** A grid's header cells near its rows: [role=columnheader], else th cells outside the rows' table
   * (a header table above a scrolled body), in the closest ancestor that has any. */
  function nearHeads(row) {
    const own = row.closest('table');
    for (let el = row.parentElement, i = 0; el && el !== document.documentElement && i < 8; el = el.parentElement, i += 1) {
      let heads = Array.from(el.querySelectorAll('[role=columnheader]'));
      if (!heads.length) heads = Array.from(el.querySelectorAll('th')).filter((th) => th.closest('table') !== own);
      heads = heads.filter((h) => !row.contains(h) && agent.isVisible(h));
      if (heads.length >= 2) return heads;
    }
    return [];
  }

  /** The cells of one record of a grid: its own gridcells when it has them, else its children. */
  function cellsOf(row) {
    if (row.localName === 'tr') return Array.from(row.cells);
    const roled = Array.from(row.querySelectorAll('[role=gridcell], [role=cell], [role=rowheader]')).filter((c) => {
      const owner = c.parentElement.closest('[role=row]');
      return !owner || owner === row || !row.contains(owner);
    });
    if (roled.length >= 2) return roled;
    return Array.from(row.children).filter((c) => c.namespaceURI === HTML && !SKIP.has(c.localName));
  }

  /** For each cell, its header cell: the same column key (col-id, tabulator-field, …), else the one at
   * its index when the counts agree, else the header above it (their columns overlap most). */
  function align(cells, heads) {
    const out = cells.map(() => null);
    const used = new Set();
    cells.forEach((cell, j) => {
      for (const key of COLUMN_KEYS) {
        const v = cell.getAttribute(key);
        const h = v === null ? null : heads.find((x) => !used.has(x) && x.getAttribute(key) === v);
        if (h) {
          out[j] = h;
          used.add(h);
          break;
        }
      }
    });
    // As many headers as cells: the same order (a header table above a scrolled body need not share
    // its column widths).
    if (heads.length === cells.length) {
      cells.forEach((c, j) => {
        if (!out[j] && !used.has(heads[j])) {
          out[j] = heads[j];
          used.add(heads[j]);
        }
      });
    }
    const boxes = new Map(heads.map((h) => [h, h.getBoundingClientRect()]));
    cells.forEach((cell, j) => {
      if (out[j]) return;
      const r = cell.getBoundingClientRect();
      let best = null;
      let most = Math.min(r.width, 8) / 2;
      for (const h of heads) {
        const b = boxes.get(h);
        const overlap = Math.min(r.right, b.right) - Math.max(r.left, b.left);
        if (!used.has(h) && overlap > most) [best, most] = [h, overlap];
      }
      if (best) {
        out[j] = best;
        used.add(best);
      }
    });
    return out;
  }

  /** A column's name: its header's text, else the column key the header and cell share. */
  function headName(head, cell) {
    if (head) {
      const text = slug(agent.redactedText(head));
      if (text && !text.includes('redacted')) return text;
    }
    for (const key of COLUMN_KEYS) {
      const v = cell.getAttribute(key);
      if (v && key !== 'aria-colindex') return slug(v);
    }
    return '';
  }

  /** The selector, run from `row`, for one cell: its column key, a class only it has, its position. */
  function cellSelector(cell, row, j) {
    for (const key of COLUMN_KEYS) {
      const v = cell.getAttribute(key);
      if (v === null) continue;
      const t = /^[A-Za-z_][\w-]*$/.test(v) ? `[${key}=${v}]` : `[${key}="${v.replace(/["\\]/g, '\\$&')}"]`;
      if (row.querySelector(t) === cell) return t;
    }
    const own = stableClasses(cell).find((c) => row.querySelector(`${cell.localName}.${CSS.escape(c)}`) === cell);
    if (own) return `${cell.localName}.${CSS.escape(own)}`;
    const at = `${cell.localName}:nth-child(${j + 1})`;
    if (cell.parentElement === row && row.querySelector(at) === cell) return at;
    return selectorIn(cell, row);
  }

  /** Whether `rows` are a grid's: role=row, gridcells, or header cells that line up with their cells. */
  function isGrid(rows) {
    const row = rows[0];
    if (row.localName === 'tr') return true;
    if (row.getAttribute('role') === 'row' || row.querySelector('[role=gridcell], [role=cell]')) return cellsOf(row).length >= 2;
    const cells = cellsOf(row);
    return cells.length >= 2 && align(cells, nearHeads(row)).filter(Boolean).length >= 2;
  }

  /** Fields of table or grid rows: one per column, named by its header; links, images and an icon's
   * title add a field. */
  function table(rows) {
    const sample = Array.from(rows).slice(0, SAMPLED);
    const first = sample[0];
    const own = first.localName === 'tr' ? tableHeads(first.closest('table')) : [];
    const heads = own.length ? null : nearHeads(first);
    const stats = new Map();
    const add = (key, make, value) => {
      let f = stats.get(key);
      if (!f) stats.set(key, (f = { ...make, count: 0, values: [] }));
      f.count += 1;
      f.values.push(value);
    };
    for (const row of sample) {
      const cells = cellsOf(row);
      const above = heads ? align(cells, heads) : own;
      cells.forEach((cell, j) => {
        const selector = cellSelector(cell, row, cell.parentElement === row ? Array.prototype.indexOf.call(row.children, cell) : j);
        if (row.querySelector(selector) !== cell) return;
        const named = headName(above[j] || null, cell);
        const name = named || (stableClasses(cell)[0] ? slug(stableClasses(cell)[0]) : `column_${j + 1}`);
        const text = agent.redactedText(cell);
        add(`${selector}|text`, { selector, take: 'text', name, column: Boolean(named) }, text);
        const link = cell.querySelector('a[href]');
        if (link) add(`${selector}|url`, { selector: `${selector} a`, take: 'url', name, textName: name }, link.getAttribute('href'));
        const img = cell.querySelector('img');
        const attr = img && imageAttr(img);
        if (attr) add(`${selector}|img`, { selector: `${selector} img`, take: 'attr', attr, name: `${name}_image` }, img.getAttribute(attr));
        // An icon that says its value only in its title (a tick with title="active: true").
        const titled = !text && cell.querySelector('[title]');
        if (titled) {
          const sel = `${selector} ${selectorIn(titled, cell).replace(/^:scope > /, '')}`;
          add(`${selector}|title`, { selector: sel, take: 'attr', attr: 'title', name, label: true }, titled.getAttribute('title'));
        }
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

  agent.suggestFields = { stableClasses, rowClasses, signature, slug, generic, table, isGrid, cellsOf, definitions, NUMBER };
})();
