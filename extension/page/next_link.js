// Where a page's next control leads (`nextTarget`), for the live page (extract) and for a fetched one
// (page/fetch.js): a link's or a GET form's URL, with the pager's numbered links beside it, or why
// there is none to follow (the end, a disabled control, one only a script can follow, or every match
// hidden while one still leads on).
(() => {
  const agent = globalThis.__tabpilotAgent.use('next_link', {
    needs: ['isDisabledControl', 'isSensitive', 'isVisible', 'queryAll'],
    provides: ['bareUrl', 'nextTarget', 'pagerUrls'],
  });
  const PAGER_LEVELS = 6; // how far up from the next link a pager's numbered links are looked for
  const PAGER_MAX = 50; // numbered links reported at most (a pager shows a handful)

  /** Hidden by the markup itself: a parsed document has no layout, so no CSS can be asked. */
  function hiddenInMarkup(el) {
    for (let e = el; e; e = e.parentElement) {
      // Scripting is off in a parsed document, so <noscript> holds elements the live page never shows.
      if (e.hidden || e.localName === 'noscript') return true;
      if (e.style && (e.style.display === 'none' || e.style.visibility === 'hidden')) return true;
    }
    return false;
  }

  /** `url` as a URL without its fragment (every page file that compares pages' addresses uses this one). */
  const bare = (url) => {
    const u = new URL(url);
    u.hash = '';
    return u;
  };
  agent.bareUrl = bare;

  /** The URL a GET form's submit button leads to, or null when it is another kind of form. */
  function formUrl(button) {
    const form = button.form;
    if (!form || (button.localName === 'input' && button.type === 'image')) return null;
    const method = (button.getAttribute('formmethod') || form.getAttribute('method') || 'get').toLowerCase();
    if (method !== 'get') return null;
    const action = button.getAttribute('formaction') ?? form.getAttribute('action') ?? '';
    const url = new URL(action, button.baseURI);
    url.search = new URLSearchParams(new FormData(form, button)).toString();
    return url;
  }

  /**
   * The URLs among `hrefs` that differ from `next` in exactly one number (`?page=7` for `?page=3`,
   * `/p/7/` for `/p/3/`), each once, in their order: a pager's numbered links. The host learns from
   * them how far the pages go (engine/paging/numbered.py).
   */
  agent.pagerUrls = (next, hrefs) => {
    const want = next.split(/(\d+)/);
    const out = [];
    for (const href of hrefs) {
      if (out.length >= PAGER_MAX) break;
      if (href === next || out.includes(href)) continue;
      const got = href.split(/(\d+)/);
      if (got.length !== want.length) continue;
      // Odd indexes of the split are the numbers: one may differ, the words between them may not.
      let numbers = 0;
      let words = 0;
      want.forEach((part, i) => {
        if (part !== got[i]) {
          if (i % 2 === 1) numbers += 1;
          else words += 1;
        }
      });
      if (numbers === 1 && words === 0) out.push(href);
    }
    return out;
  };

  /** Absolute URLs (no fragment) of the links in `root`. */
  const linkUrls = (root) => [...root.querySelectorAll('a[href], area[href]')].flatMap((a) => {
    try {
      return [bare(new URL(a.getAttribute('href').trim(), a.baseURI).href).href];
    } catch {
      return [];
    }
  });

  /** The numbered links of the pager around the next link: from the nearest ancestor (a few levels
   * up, never the whole body) that holds two or more of them. */
  function pagerNear(link, nextUrl) {
    let found = [];
    for (let el = link.parentElement, up = 0; el && up < PAGER_LEVELS; el = el.parentElement, up += 1) {
      if (el.localName === 'body' || el.localName === 'html') break;
      found = agent.pagerUrls(nextUrl, linkUrls(el));
      if (found.length >= 2) break;
    }
    return found;
  }

  /** The page (not `here`) control `el` leads to: a link's, or a GET form button's; else null. */
  function leadsTo(el, here) {
    let url = null;
    const link = el.closest('a[href], area[href]');
    const raw = link ? link.getAttribute('href').trim() : '';
    try {
      if (raw && !raw.startsWith('#') && !/^javascript:/i.test(raw)) url = bare(new URL(raw, link.baseURI).href);
      else if (!link && (el.localName === 'button' || (el.localName === 'input' && /^(submit|image)$/.test(el.type)))) url = formUrl(el);
    } catch {
      return null; // not a URL: it leads nowhere
    }
    return url && /^https?:$/.test(url.protocol) && url.href !== here.href ? url : null;
  }

  /**
   * Where the next control of `doc` leads: `{url, same_origin}` for a link or a GET form's button,
   * `{end: "missing" | "disabled"}` as paginate says it (`hidden`: every match is hidden, one leading
   * to another page), or `{kind: "button"}` for a control only a script can follow (no href, `#`,
   * `javascript:`, a POST form). A link adds `pager` (pagerUrls) when it has numbered neighbours.
   * `live`: the first visible match, as paginate clicks; in a parsed document the first match its
   * markup does not hide.
   */
  agent.nextTarget = (doc, selector, live, docUrl) => {
    const all = [...agent.queryAll(selector, doc)];
    const shown = all.find((el) => (live ? agent.isVisible(el) : !hiddenInMarkup(el)));
    const here = bare(docUrl);
    // Every match hidden: the last page, or a page that hides its pager while its link still leads on
    // (a feed that loads more as you scroll does): then `hidden`, and the end is not proven.
    if (!shown) return all.some((el) => leadsTo(el, here)) ? { end: 'missing', hidden: true } : { end: 'missing' };
    if (agent.isDisabledControl(shown)) return { end: 'disabled' };
    const url = leadsTo(shown, here);
    if (!url) return { kind: 'button' };
    const link = shown.closest('a[href], area[href]');
    const out = { url: url.href, same_origin: url.origin === here.origin };
    if (agent.isSensitive(link || shown)) out.sensitive = true; // followed, its query written nowhere
    const pager = link ? pagerNear(link, url.href) : [];
    if (pager.length) out.pager = pager;
    return out;
  };
})();
