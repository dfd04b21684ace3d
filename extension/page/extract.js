// Structured extraction in the page: compiled schema fields (FieldPlan) applied to every row a
// selector matches, and `count`. Rows are serialized here into one JSON string: handing the worker
// one string costs a fraction of structured-cloning arrays of values (25 vs 66 ms for 5k rows).
// Secrets are redacted before anything is serialized; document.cookie and storage are never read.
// A field selector starting with `+` or `~` reads the row's following siblings, as CSS's combinators
// do (a dl's `dt` row and its `+ dd`). Shadow DOM: the row selector searches the document's light DOM. A field selector that finds nothing
// inside a row is tried once more in the row's own shadow root (open or closed), so a list of custom
// elements extracts; deeper roots are not entered.
(() => {
  const agent = globalThis.__tabpilotAgent.use('extract', {
    needs: ['PageError', 'REDACTED', 'collectVirtual', 'hasSensitive', 'isSensitive', 'isVisible', 'maskDeep', 'maskedTextOf', 'patternsHit', 'queryAll', 'redactUrl', 'redactedAttr', 'redactedHtml', 'redactedText', 'safeSelector', 'shadowRootOf', 'virtualGrid'],
    provides: ['fieldPlans', 'rowValues', 'forgetPositions', 'rowsAnswer', 'commands.extract', 'commands.count'],
    later: ['listGoesOn', 'nextTarget', 'pagerPosition'],
  });
  const TAKES = new Set(['text', 'html', 'attr', 'url']);
  const CONTROLS = new Set(['input', 'textarea', 'select']);

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();
  const isSelf = (selector) => !selector || selector.trim() === ':scope';

  /** Why `selector` is not valid CSS, or null when it is (checked once, not per row). */
  function selectorProblem(selector) {
    try {
      document.createDocumentFragment().querySelector(selector);
      return null;
    } catch (err) {
      return err.message;
    }
  }

  /** What a person sees in a form control: its current value, or the chosen options' labels. */
  function controlText(el) {
    if (el.localName === 'select') return [...el.selectedOptions].map((o) => normalise(o.text)).join(', ');
    return String(el.value);
  }

  function absolute(raw, el) {
    try {
      return new URL(raw.trim(), el.baseURI).href;
    } catch {
      return raw;
    }
  }

  /** One value of `el` for `field`. `clean`: nothing in the row is a secret, so no checks are needed. */
  function read(el, field, clean) {
    const secret = !clean && agent.isSensitive(el);
    switch (field.take) {
      case 'text':
        if (CONTROLS.has(el.localName)) return secret ? agent.REDACTED : controlText(el);
        return clean ? normalise(agent.maskedTextOf(el)) : agent.redactedText(el);
      case 'html':
        return clean ? el.innerHTML : agent.redactedHtml(el);
      case 'attr': {
        // An input's value attribute is only its initial value; people mean what it holds now.
        if (field.attr === 'value' && CONTROLS.has(el.localName)) return secret ? agent.REDACTED : String(el.value);
        return secret ? agent.redactedAttr(el, field.attr) : el.getAttribute(field.attr);
      }
      default: {
        const name = field.attr || (el.hasAttribute('href') ? 'href' : 'src');
        const raw = el.getAttribute(name);
        if (raw === null) return null;
        // <a href>, <img src> and kin resolve their own URL natively, cheaper than new URL() per row.
        const own = name === 'href' ? el.href : name === 'src' ? el.src : null;
        const url = typeof own === 'string' && own ? own : absolute(raw, el);
        return secret ? agent.redactUrl(url) : url;
      }
    }
  }

  // Position (1-based) of each element among its parent's element children, built once per parent:
  // rows of one list share a parent, so a sibling field costs one walk, not one per row.
  let positions = new WeakMap();
  function position(row) {
    const parent = row.parentElement;
    let map = positions.get(parent);
    if (!map) {
      map = new Map();
      let i = 0;
      for (let c = parent.firstElementChild; c; c = c.nextElementSibling) map.set(c, (i += 1));
      positions.set(parent, map);
    }
    return map.get(row);
  }

  /** A sibling field (`+ dd`, `~ .note a`): CSS's own combinator, anchored at the row's position. */
  function sibling(row, field, clean) {
    const parent = row.parentElement;
    if (!parent) return field.all ? [] : null;
    const anchored = `:scope > :nth-child(${position(row)}) ${field.css}`;
    const rowClean = clean && !agent.hasSensitive(parent);
    if (field.all) {
      const found = parent.querySelectorAll(anchored);
      if (found.length) field.hits += 1;
      return Array.from(found, (el) => read(el, field, rowClean));
    }
    const el = parent.querySelector(anchored);
    if (el === null) return null;
    field.hits += 1;
    return read(el, field, rowClean);
  }

  /** The field's value in `row`: a string or null, or a list of strings when field.all. */
  function value(row, field, clean) {
    if (field.problem) return null;
    if (field.relative) return sibling(row, field, clean);
    if (field.self) {
      field.hits += 1;
      return field.all ? [read(row, field, clean)] : read(row, field, clean);
    }
    if (field.all) {
      let found = row.querySelectorAll(field.css);
      let rowClean = clean;
      const root = found.length === 0 ? agent.shadowRootOf(row) : null;
      if (root) {
        found = root.querySelectorAll(field.css);
        rowClean = false; // the page-wide check does not look into shadow roots
      }
      if (found.length) field.hits += 1;
      return Array.from(found, (el) => read(el, field, rowClean));
    }
    let el = row.querySelector(field.css);
    let rowClean = clean;
    const root = el === null ? agent.shadowRootOf(row) : null;
    if (root) {
      el = root.querySelector(field.css);
      rowClean = false;
    }
    if (el === null) return null;
    field.hits += 1;
    return read(el, field, rowClean);
  }

  function plan(fields) {
    if (!Array.isArray(fields) || fields.length === 0) {
      throw new agent.PageError('invalid_params', 'fields must be a non-empty list of {name, selector, take}');
    }
    return fields.map((f) => {
      if (!f || typeof f.name !== 'string') throw new agent.PageError('invalid_params', 'every field needs a name');
      const take = f.take || 'text';
      if (!TAKES.has(take)) throw new agent.PageError('invalid_params', `field ${JSON.stringify(f.name)}: take must be text, html, attr or url`);
      if (take === 'attr' && !f.attr) throw new agent.PageError('invalid_params', `field ${JSON.stringify(f.name)}: attr needs an attribute name`);
      const selector = typeof f.selector === 'string' ? f.selector : '';
      const self = isSelf(selector);
      // A selector that starts with a combinator reads the row's following siblings (a dl's dd).
      const relative = /^\s*[+~]/.test(selector);
      const problem = self ? null : selectorProblem(relative ? `:scope > * ${selector}` : selector);
      // Attribute-value tests never match a secret (page/redact.js): a field is no oracle either.
      const css = problem ? selector : agent.safeSelector(selector);
      return { name: f.name, selector, css, self, relative, take, attr: f.attr || null, all: Boolean(f.all), problem, hits: 0 };
    });
  }

  /** One row's values, in field order (`anySecret`: whether the page holds a secret at all). */
  function rowValues(row, plans, anySecret) {
    const clean = !anySecret || !agent.hasSensitive(row);
    const values = new Array(plans.length);
    for (let j = 0; j < plans.length; j += 1) values[j] = value(row, plans[j], clean);
    return values;
  }

  // Shared with suggest: its sample rows come from this very code, so a draft schema passed to
  // extract gives the same rows by construction.
  agent.fieldPlans = plan;
  agent.rowValues = rowValues;
  agent.forgetPositions = () => { positions = new WeakMap(); };

  /** The warnings of fields that were invalid or found nothing in any of `n` rows. */
  function fieldWarnings(plans, n) {
    const warnings = [];
    for (const p of plans) {
      if (p.problem) {
        warnings.push({ field: p.name, message: `${JSON.stringify(p.selector)} is not a valid CSS selector (${p.problem}); the field is null in every row` });
      } else if (n > 0 && p.hits === 0) {
        warnings.push({ field: p.name, message: `${JSON.stringify(p.selector)} matched nothing in any of the ${n} rows` });
      }
    }
    return warnings;
  }

  /** The answer as one JSON text; `extra` (an object) adds keys. The document's type tells a page of
   * rows from a JSON export or a download that a next link led to. */
  function answer(parts, count, warnings, extra = null, doc = document, url = location.href) {
    // Secret-shaped text (the pattern list) is looked for once in all the rows' JSON, and only rows
    // that show some are masked value by value.
    let body = parts.join(',');
    if (agent.patternsHit(body)) body = parts.map((t) => (agent.patternsHit(t) ? JSON.stringify(agent.maskDeep(JSON.parse(t))) : t)).join(',');
    const head = `{"rows":[${body}],"count":${count},"warnings":${JSON.stringify(warnings)}`;
    const more = extra ? `,${JSON.stringify(extra).slice(1, -1)}` : '';
    return { json: `${head},"url":${JSON.stringify(url)},"type":${JSON.stringify(doc.contentType)}${more}}` };
  }

  function tooLarge(rows, size) {
    return new agent.PageError('result_too_large', `the first ${rows} rows already make ${size} characters of JSON: pass a limit or fewer fields`);
  }

  /** A virtualised grid's rows, collected while its box scrolls (page/virtual.js). */
  async function extractVirtual(selector, plans, box, limit, maxChars, timeoutMs, resume, last, keyFields) {
    const anySecret = agent.hasSensitive(document.documentElement);
    const relative = plans.some((p) => p.relative);
    const read = (row) => {
      if (relative) agent.forgetPositions(); // the grid moves its rows around between reads
      return JSON.stringify(rowValues(row, plans, anySecret));
    };
    const deadline = Date.now() + Math.max(100, timeoutMs - 500);
    // Rows without an index are told apart by the named fields' values (unknown names: by all of them).
    const at = (keyFields || []).map((name) => plans.findIndex((p) => p.name === name));
    const keyOf = at.length && at.every((i) => i >= 0) ? (text) => JSON.stringify(at.map((i) => JSON.parse(text)[i])) : null;
    const got = await agent.collectVirtual(selector, box, read, { limit, deadline, resume, keep: !last, keyOf });
    // Out of time: the rows stay in the page until the host asks again with resume (unless last).
    if (got.resume) return answer([], 0, [], { virtual: { rows: got.read, scrolls: got.scrolls, complete: false, resume: true } });
    const { texts, scrolls, complete, gaps, at_end: atEnd, declared, printed, keyed_by: keyedBy } = got;
    let size = 0;
    texts.forEach((text, i) => {
      size += text.length + 1;
      if (size > maxChars) throw tooLarge(i, size);
    });
    const warnings = fieldWarnings(plans, texts.length);
    if (gaps) warnings.push({ field: '', message: `${gaps} rows between the first and the last were never drawn while the grid scrolled: the data has holes` });
    else if (!complete) warnings.push({ field: '', message: `the grid was still scrolling after ${timeoutMs} ms: ${texts.length} rows read; give a longer options.timeout_ms` });
    return answer(texts, texts.length, warnings, { virtual: { rows: texts.length, scrolls, complete, at_end: atEnd, declared, printed, keyed_by: keyedBy } });
  }

  // `max_chars`: the most JSON text the host takes for one result (the worker passes the wire's
  // MAX_RESULT_BYTES); building more would only be thrown away. `virtual`: null finds out whether the
  // rows are a virtualised grid's (they carry a row index and scroll in a box of their own), true
  // insists, false never scrolls.
  agent.commands.extract = ({ selector, fields, limit, max_chars: maxChars, virtual = null, resume = false, last = false, timeout_ms: timeoutMs = 10_000, next_selector: nextSelector = null, key_fields: keyFields = null }) => {
    if (typeof selector !== 'string' || !selector.trim()) {
      throw new agent.PageError('invalid_params', 'selector must be a CSS selector for the rows, e.g. "table tbody tr"');
    }
    const plans = plan(fields);
    const matched = agent.queryAll(selector);
    const cap = Number.isInteger(limit) && limit >= 0 ? limit : null;
    const box = virtual === false || cap === 0 ? null : agent.virtualGrid(matched, virtual === true);
    agent.forgetPositions(); // the page may have changed since the last call
    if (box) return extractVirtual(selector, plans, box, cap, maxChars, timeoutMs, resume === true, last === true, Array.isArray(keyFields) ? keyFields : null);
    // Where the next control leads, for link pagination without rendering (page/fetch.js).
    const extra = typeof nextSelector === 'string' && nextSelector ? { next: agent.nextTarget(document, nextSelector, true, location.href) } : null;
    // (The scripts a fetched page's checks read are started by the first fetch once its request has
    // left, page/fetch.js: started from here, they held the page's main thread, the HTTP cache and the
    // worker just as the engine's fetches came, and page 2's request left ~20 ms later.)
    // At the end, whether a pager goes on past it (a next_selector that misses); without paging,
    // whether the rows' list visibly goes on (page/onward.js).
    if (extra && extra.next.end) Object.assign(extra.next, agent.pagerPosition(document));
    const more = extra || cap === 0 ? null : agent.listGoesOn(matched);
    if (more) return rowsAnswer(document, matched, plans, cap, maxChars, { more }, location.href);
    return rowsAnswer(document, matched, plans, cap, maxChars, extra, location.href);
  };

  /** The extract answer for rows `matched` of `doc` (the live document or a parsed one, page/fetch.js). */
  function rowsAnswer(doc, matched, plans, cap, maxChars, extra, url) {
    const n = cap === null ? matched.length : Math.min(cap, matched.length);
    // Most pages hold no secret at all: one look here spares a look per row (and per value) later.
    const anySecret = agent.hasSensitive(doc.documentElement);
    const parts = [];
    let size = 0;
    for (let i = 0; i < n; i += 1) {
      const text = JSON.stringify(rowValues(matched[i], plans, anySecret));
      size += text.length + 1;
      if (size > maxChars) throw tooLarge(i, size);
      parts.push(text);
    }
    return answer(parts, matched.length, fieldWarnings(plans, n), extra, doc, url);
  }
  agent.rowsAnswer = rowsAnswer;

  agent.commands.count = ({ selector }) => {
    if (typeof selector !== 'string' || !selector.trim()) throw new agent.PageError('invalid_params', 'selector must be a CSS selector');
    const all = agent.queryAll(selector);
    let visible = 0;
    for (const el of all) if (agent.isVisible(el)) visible += 1;
    return { count: all.length, visible };
  };
})();
