// `suggest`: the page's repeated records, found in one pass over the DOM. Siblings that share a tag
// and stable classes are one candidate structure (table rows, list items, cards, a dl's terms,
// repeated divs); each visible one gets a row selector checked to match exactly its rows, a draft
// field schema (page/suggest_fields.js), sample rows read by extract's own code (so passing the draft
// to extract gives the same rows), a next-page guess, and a score; the best region's skeleton
// (page/skeleton.js) comes along for an agent that would rather write its own extractor.
(() => {
  const agent = globalThis.__tabpilotAgent.use('suggest', {
    needs: ['PageError', 'fieldPlans', 'forgetPositions', 'hasSensitive', 'isVisible', 'maskDeep', 'query', 'rowValues', 'skeleton', 'suggestFields', 'suggestPaging', 'waitForDom'],
    provides: ['commands.suggest'],
  });
  const HTML = 'http://www.w3.org/1999/xhtml';
  // Elements that are parts of a record, or not content at all: never a record themselves.
  const NOT_RECORDS = new Set(['td', 'th', 'dd', 'option', 'optgroup', 'tbody', 'thead', 'tfoot', 'col', 'colgroup',
    'head', 'meta', 'link', 'script', 'style', 'noscript', 'template', 'br', 'hr', 'source', 'track', 'param', 'area', 'wbr']);
  const LANDMARKS = 'nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=menu], [role=menubar]';
  const STABLE_ID = /^[A-Za-z][\w-]*$/;
  const MIN_ROWS = 3;
  const PRESELECT = 40;
  const SAMPLE_ROWS = 3;
  // A page that shows no records yet (an app still fetching them, a grid's "Loading…" row) is given this
  // long to draw them: a change of its DOM within FIRST_CHANGE_MS, then a quiet spell of DRAWN_QUIET_MS,
  // and it is read again. A page that stays still costs FIRST_CHANGE_MS.
  const DRAW_WAIT_MS = 3000;
  const FIRST_CHANGE_MS = 1000;
  const DRAWN_QUIET_MS = 250;

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();
  const esc = (s) => CSS.escape(s);

  /** Every element once: sibling groups under `root`, and how often each id and tag.class occurs. */
  function scan(root) {
    const { stableClasses, rowClasses } = agent.suggestFields;
    const groups = new Map();
    const ids = new Map();
    const classes = new Map();
    const tags = new Map();
    const all = document.getElementsByTagName('*');
    const scoped = root !== document.body;
    let elements = 0;
    for (let i = 0; i < all.length; i += 1) {
      const el = all[i];
      if (el.namespaceURI !== HTML) continue;
      elements += 1;
      const tag = el.localName;
      tags.set(tag, (tags.get(tag) || 0) + 1);
      if (el.id) ids.set(el.id, (ids.get(el.id) || 0) + 1);
      const own = stableClasses(el);
      for (const c of own) classes.set(`${tag}.${c}`, (classes.get(`${tag}.${c}`) || 0) + 1);
      const parent = el.parentElement;
      if (!parent || NOT_RECORDS.has(tag) || (scoped && !root.contains(parent))) continue;
      const kept = rowClasses(el).sort();
      const sig = kept.length ? `${tag}.${kept.join('.')}` : tag;
      let bySig = groups.get(parent);
      if (!bySig) groups.set(parent, (bySig = new Map()));
      const members = bySig.get(sig);
      if (members) members.push(el);
      else bySig.set(sig, [el]);
    }
    return { groups, counts: { ids, classes, tags }, elements };
  }

  /** Sibling groups that may be records, biggest (rows x row size) first. */
  function structures(groups) {
    const found = [];
    for (const [parent, bySig] of groups) {
      for (let members of bySig.values()) {
        const tag = members[0].localName;
        let kind;
        if (tag === 'tr') {
          members = members.filter((tr) => tr.querySelector(':scope > td'));
          if (members.length < 2) continue;
          kind = 'table';
        } else if (tag === 'dt') {
          if (parent.localName !== 'dl' || members.length < 2) continue;
          kind = 'definitions';
        } else {
          if (members.length < MIN_ROWS) continue;
          kind = tag === 'li' ? 'list' : 'repeated';
        }
        const size = Math.min(members[0].getElementsByTagName('*').length + 1, 30);
        found.push({ parent, members, kind, weight: members.length * size });
      }
    }
    return found.sort((a, b) => b.weight - a.weight).slice(0, PRESELECT);
  }

  /** A unique selector for `el` alone: its own id or tag.class when unique, else a short path. */
  function uniquePath(el, counts) {
    const { stableClasses } = agent.suggestFields;
    const steps = [];
    for (let cur = el; cur; cur = cur.parentElement) {
      const tag = cur.localName;
      if (cur.id && STABLE_ID.test(cur.id) && !/\d{4,}/.test(cur.id) && counts.ids.get(cur.id) === 1) {
        steps.unshift(`#${esc(cur.id)}`);
        break;
      }
      const own = stableClasses(cur).find((c) => counts.classes.get(`${tag}.${c}`) === 1);
      if (own) {
        steps.unshift(`${tag}.${esc(own)}`);
        break;
      }
      if (cur === document.body || cur === document.documentElement || (tag === 'main' && counts.tags.get(tag) === 1)) {
        steps.unshift(tag);
        break;
      }
      steps.unshift(stepAmongSiblings(cur));
    }
    return steps.join(' > ');
  }

  function stepAmongSiblings(el) {
    const tag = el.localName;
    const same = Array.from(el.parentElement.children).filter((s) => s.localName === tag);
    if (same.length === 1) return tag;
    for (const c of agent.suggestFields.stableClasses(el)) {
      if (same.filter((s) => s.classList.contains(c)).length === 1) return `${tag}.${esc(c)}`;
    }
    return `${tag}:nth-of-type(${same.indexOf(el) + 1})`;
  }

  /** A selector that matches exactly `members` in the document, or null. */
  function rowSelector(s, counts) {
    const { parent, members, kind } = s;
    const tag = members[0].localName;
    const shared = agent.suggestFields.rowClasses(members[0]).filter((c) => members.every((m) => m.classList.contains(c)));
    const parts = kind === 'table' ? ['tr', 'tr:has(> td)'] : [...shared.map((c) => `${tag}.${esc(c)}`), tag];
    const container = uniquePath(parent, counts);
    const want = new Set(members);
    let extra = null;
    for (const part of parts) {
      const selector = `${container} > ${part}`;
      const got = Array.from(document.querySelectorAll(selector));
      if (got.length === want.size && got.every((el) => want.has(el))) return selector;
      if (extra === null && got.every((el) => want.has(el) || el.parentElement === parent)) {
        extra = { selector, others: got.filter((el) => !want.has(el)) };
      }
    }
    // Siblings that look the same but carry one more class (a hidden `card gone`, an `ad`): left out
    // by name, when every one of them has a class none of the rows has.
    if (extra && extra.others.length) {
      const own = new Set(members.flatMap((m) => Array.from(m.classList)));
      const marks = new Set();
      for (const el of extra.others) {
        const mark = Array.from(el.classList).find((c) => !own.has(c));
        if (!mark) return null;
        marks.add(mark);
      }
      const selector = `${extra.selector}${Array.from(marks, (c) => `:not(.${esc(c)})`).join('')}`;
      const got = document.querySelectorAll(selector);
      if (got.length === want.size && Array.from(got).every((el) => want.has(el))) return selector;
    }
    return null;
  }

  /** What the structure says about itself: ids, classes, labels, nearby headings, field names, text. */
  function haystack(s, fields) {
    const bits = fields.map((f) => f.name);
    for (let el = s.parent, i = 0; el && el !== document.body && i < 4; el = el.parentElement, i += 1) {
      bits.push(el.id, el.getAttribute('class') || '', el.getAttribute('aria-label') || '');
      // The heading right before a block names it (a div soup's headings are short childless divs).
      const sib = el.previousElementSibling;
      if (sib && (/^(h[1-6]|caption|legend|label)$/.test(sib.localName) || (sib.childElementCount === 0 && (sib.textContent || '').length <= 80))) {
        bits.push(sib.textContent);
      }
    }
    const table = s.parent.closest('table');
    if (table && table.caption) bits.push(table.caption.textContent);
    for (const row of s.members.slice(0, SAMPLE_ROWS)) bits.push((row.textContent || '').slice(0, 400));
    return bits.join(' ').toLowerCase();
  }

  function queryWords(query) {
    if (typeof query !== 'string') return [];
    return [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2))];
  }

  /** Share of the query words (or their singular) the structure mentions. */
  function matched(words, hay) {
    if (!words.length) return 0;
    const hit = words.filter((w) => hay.includes(w) || (w.length > 3 && w.endsWith('s') && hay.includes(w.slice(0, -1))));
    return hit.length / words.length;
  }

  /** Everything about one structure, or null when it is hidden, empty or cannot be selected exactly. */
  function describe(s, counts, words) {
    const kit = agent.suggestFields;
    if (!agent.isVisible(s.parent) || !s.members.slice(0, SAMPLE_ROWS).some((m) => agent.isVisible(m))) return null;
    let kind = s.kind === 'repeated' && s.members[0].querySelector('img, h1, h2, h3, h4, h5, h6') ? 'cards' : s.kind;
    if (kind !== 'table' && kind !== 'definitions' && kit.isGrid(s.members)) kind = 'grid';
    const draft = kind === 'table' || kind === 'grid' ? kit.table(s.members) : kind === 'definitions' ? kit.definitions(s.members) : kit.generic(s.members);
    if (!draft.fields.length) return null;
    const selector = rowSelector(s, counts);
    if (!selector) return null;
    const sampled = Math.min(s.members.length, 12);
    const consistency = draft.fields.reduce((sum, f) => sum + (f.hits ? f.hits / sampled : 1), 0) / draft.fields.length;
    const aside = s.parent.closest(LANDMARKS) ? 0.2 : 1;
    const boost = 1 + 9 * matched(words, haystack(s, draft.fields));
    const score = s.members.length * draft.fields.length * consistency * aside * boost;
    return { ...s, kind, selector, draft, score, aside: aside < 1 };
  }

  function sampleRows(selector, fields, anySecret) {
    const plans = agent.fieldPlans(fields);
    agent.forgetPositions();
    return Array.from(document.querySelectorAll(selector)).slice(0, SAMPLE_ROWS).map((row) => agent.maskDeep(agent.rowValues(row, plans, anySecret)));
  }

  function region(top, css, counts) {
    if (css) return { el: agent.query(css), selector: css };
    if (!top) {
      const main = document.querySelector('main, [role=main]') || document.body;
      return { el: main, selector: uniquePath(main, counts) };
    }
    const el = top.kind === 'table' ? top.parent.closest('table') : top.parent;
    return { el, selector: uniquePath(el, counts) };
  }

  /** The best `max` structures under `root`: none of them inside a card of a better one. */
  function best(root, query, max) {
    const { groups, counts, elements } = scan(root);
    const words = queryWords(query);
    const ranked = structures(groups).map((s) => describe(s, counts, words)).filter(Boolean).sort((a, b) => b.score - a.score);
    const kept = [];
    for (const c of ranked) {
      if (kept.length >= max) break;
      if (kept.some((k) => k.parent !== c.parent && k.parent.contains(c.parent))) continue;
      kept.push(c);
    }
    return { kept, counts, elements };
  }

  /** Until the DOM changes (within FIRST_CHANGE_MS) and then stays still, or `until`; true: it changed. */
  async function drawn(until) {
    let changed = false;
    await agent.waitForDom(() => (changed = true), () => ({}), Math.max(0, Math.min(FIRST_CHANGE_MS, until - performance.now())), () => {});
    if (changed) await agent.waitForDom(() => false, () => ({}), Math.max(0, until - performance.now()), () => {}, { quietMs: DRAWN_QUIET_MS });
    return changed;
  }

  agent.commands.suggest = async ({ query = null, css_selector: css = null, max_candidates: max = 5, skeleton_bytes: budget = 8000 }) => {
    const started = performance.now();
    const scope = () => {
      if (!css) return document.body || document.documentElement;
      const el = agent.query(css);
      if (!el) throw new agent.PageError('element_not_found', `no element matches css_selector ${JSON.stringify(css)}`, { selector: css });
      return el;
    };
    let found = best(scope(), query, max);
    const until = started + DRAW_WAIT_MS;
    while (!found.kept.length && performance.now() < until && (await drawn(until))) found = best(scope(), query, max);
    const { kept, counts, elements } = found;
    const anySecret = agent.hasSensitive(document.documentElement);
    const path = (el) => uniquePath(el, counts);
    const candidates = kept.map((c, i) => {
      const fields = c.draft.fields.map(({ name, selector, take, attr, all }) => ({ name, selector, take, attr, all: Boolean(all) }));
      const out = { kind: c.kind, selector: c.selector, fields, converts: c.draft.converts, rows: c.members.length, score: Math.round(c.score * 10) / 10 };
      // The best one is read and its list's rest worked out; the others are named only.
      if (i > 0) return out;
      // The pager after a structure is its own; menus and footers have none.
      return { ...out, sample: sampleRows(c.selector, fields, anySecret), ...agent.suggestPaging.guess(c, path) };
    });
    const where = region(kept[0], css, counts);
    const skeleton = { selector: where.selector, ...agent.skeleton(where.el, budget) };
    return { candidates, skeleton, elements, duration_ms: Math.round((performance.now() - started) * 10) / 10, url: location.href };
  };
})();
