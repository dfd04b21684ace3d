// Fetch-and-parse: read a same-origin page without rendering it or moving the tab. The page agent
// fetches the URL with the tab's cookies, parses the HTML with DOMParser into an inert document (no
// script runs, nothing loads) and runs extract's own code on it, so fields, `[REDACTED]` and the
// secret patterns apply to the parsed document exactly as to the live one. The worker checks the
// final URL against the allowed sites before the rows are accepted (commands/fetch_extract.js); the
// host tells a login page from the page asked for by the final URL, as for a rendered page.
(() => {
  const agent = globalThis.__tabpilotAgent.use('fetch', {
    needs: ['PageError', 'bareUrl', 'decodedAlike', 'entryVerdict', 'fieldPlans', 'forgetPositions', 'nextTarget', 'queryAll', 'rowsAnswer', 'runsNothing', 'scriptVerdict', 'secretRoots', 'secretsSeen', 'sensitiveSelector', 'spellsMarker', 'takePlace'],
    provides: ['fetchDocument', 'fetchExtract'],
  });
  const HTML = new Set(['text/html', 'application/xhtml+xml']);

  const bare = agent.bareUrl;

  /** Whether `url` (a URL of this page's origin) answers with a redirect (asked once more, not followed). */
  async function redirects(url, timeoutMs) {
    try {
      const r = await fetch(url.href, { credentials: 'same-origin', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      return r.type === 'opaqueredirect';
    } catch {
      return false;
    }
  }

  // ---- scripts that could make secrets -------------------------------------------------------------
  // A parsed page runs no script, so what its scripts would make secret (a data-sensitive set later, a
  // field turned into a password) would read in clear. Such a script has to name what it sets: a class
  // or an attribute of the redaction list, or a password in a string. So every fetched page's scripts
  // are read (inline, handler attributes, and the files it or this page loads, once each) and a page
  // whose scripts name one, or whose script files cannot be read, is refused: it is to be rendered.
  const GENERIC_ATTRS = new Set(['type', 'autocomplete', 'name', 'id', 'class', 'value']);
  const PASSWORDISH = String.raw`["'\`][^"'\`\n]{0,60}?(?:passw|pwd)`;
  const scanned = new Map(); // markers + script URL -> Promise of whether it names one (null: unreadable)
  const reEscape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** What a script that makes secrets names, from the redaction list in force: a regex, and a test
   * that also finds the names built from pieces (page/script_names.js). */
  let markersOf = null; // [redaction list, its test]: built again only when the list changes
  function markers() {
    const selector = agent.sensitiveSelector();
    if (markersOf && markersOf[0] === selector) return markersOf[1];
    const words = new Set();
    const keys = new Set(); // dataset names of the list's data- attributes
    const list = selector.replace(/\[[^\]]*=[^\]]*\]/g, (m) => m.split('=')[0]);
    for (const m of list.matchAll(/\.(-?[_a-zA-Z][\w-]*)/g)) words.add(m[1]);
    const out = [PASSWORDISH];
    for (const m of list.matchAll(/\[\s*([\w-]+)/g)) {
      const attr = m[1].toLowerCase();
      if (GENERIC_ATTRS.has(attr)) continue;
      words.add(attr);
      if (attr.startsWith('data-')) {
        const prop = reEscape(attr.slice(5).replace(/-([a-z])/g, (_, c) => c.toUpperCase()));
        out.push(String.raw`dataset\s*(?:\.\s*${prop}\b|\[\s*["'\`]${prop}["'\`])`);
        keys.add(prop.toLowerCase());
      }
    }
    for (const w of words) out.push(String.raw`(?<![\w-])${reEscape(w)}(?![\w-])`);
    const re = new RegExp(out.join('|'), 'i');
    const names = [...words].map((w) => w.toLowerCase());
    const test = (text) => re.test(text) || agent.spellsMarker(text, names, ['password'], [...keys]);
    markersOf = [selector, { source: `${re.source}\n${names}\n${[...keys]}`, test }];
    return markersOf[1];
  }

  // The headers this site's script files last loaded with, as the worker saw them (worker/lib/
  // script_verdicts.js): a file a page of the site loaded is known by its cache entry without reading
  // that entry again. Asked once a document, when a check first needs it.
  let seenFiles = null; // Promise of url -> {url, status, headers}
  async function seenVerdict(href, re) {
    seenFiles ??= chrome.runtime.sendMessage({ type: 'scripts_seen' }).then((r) => new Map((r?.files || []).map((f) => [f.url, f])), () => new Map());
    const f = (await seenFiles).get(href);
    return f ? agent.entryVerdict({ url: f.url, status: f.status, headers: new Headers(f.headers) }, re) : null;
  }

  /**
   * Whether the script file at `src` names a marker (null: it cannot be read). Only files of this page's
   * origin, or ones this page has loaded already (`loaded`), are asked for: no request to another site
   * is made that rendering would not make.
   */
  function scriptNames(src, re, loaded, timeoutMs) {
    const key = `${re.source}\n${src}`;
    if (!scanned.has(key)) {
      const file = new URL(src);
      const ours = file.origin === location.origin;
      const cached = () => fetch(file.href, { credentials: ours ? 'same-origin' : 'omit', cache: 'force-cache', signal: AbortSignal.timeout(timeoutMs) })
        .then((r) => (r.ok ? agent.scriptVerdict(r, re) : null));
      const read = !(ours || loaded.has(file.href)) ? Promise.resolve(null) : seenVerdict(file.href, re)
        .then((known) => known ?? cached())
        .catch(() => null);
      scanned.set(key, read);
      read.then((v) => v === null && scanned.delete(key)); // a failure is asked again next time
    }
    return scanned.get(key);
  }

  // What a script makes secret cannot be told from its text in general: a marker's name can be built
  // from pieces or from data. What can be told is whether a fetched page runs a script the rendered
  // page the run stands on does not run, whose doing its redaction has not watched: such a page is
  // rendered, however the script spells things. Inline scripts and handlers are compared by shape
  // (strings, numbers, comments and spaces aside), so a page number or a token in one is no new script.
  const RUNS = /^(|module|(text|application)\/(x-)?(java|ecma)script|text\/jscript)$/i;
  const SHAPE_PARTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\b\d[\w.]*/g;
  const shapeOf = (code) => code.replace(SHAPE_PARTS, (m) => (m[0] === '/' ? '' : /\d/.test(m[0]) ? '0' : '""')).replace(/\s+/g, '');
  const runsIn = (s) => RUNS.test((s.getAttribute('type') || '').trim()) && !s.hasAttribute('nomodule');
  const handlersOf = (doc) => {
    const found = doc.evaluate("//@*[starts-with(name(), 'on')]", doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return Array.from({ length: found.snapshotLength }, (_, i) => found.snapshotItem(i));
  };

  /** The first script or handler of `doc` (`handlers`: its handler attributes) the rendered page does not
   * run (`loaded`: files it loaded), or null. */
  function newScript(doc, handlers, loaded) {
    // The rendered page's inline scripts and handlers by shape, read only when `doc` has one to compare
    // (most pages of a list have none: no walk over the rendered page's attributes for each).
    let shapes = null;
    const runs = (code) => {
      if (shapes === null) {
        shapes = new Set(handlersOf(document).map((a) => shapeOf(a.value)));
        for (const s of document.scripts) if (!s.src) shapes.add(shapeOf(s.textContent));
      }
      return shapes.has(shapeOf(code));
    };
    const files = new Set(loaded);
    for (const s of document.scripts) if (s.src) files.add(s.src);
    for (const s of doc.querySelectorAll('script')) {
      if (!runsIn(s)) continue;
      if (s.hasAttribute('src')) {
        let src;
        try {
          src = new URL(s.getAttribute('src').trim(), s.baseURI).href;
        } catch {
          continue; // not a URL: the browser loads nothing either
        }
        if (!files.has(src)) return `a script file the rendered page does not load (${src})`;
      } else if (s.textContent.trim() && !runs(s.textContent)) return 'an inline script the rendered page does not run';
    }
    for (const a of handlers) if (!runs(a.value)) return `an ${a.name} handler the rendered page does not have`;
    return null;
  }

  /** The script files this page has loaded (those it names, and the chunks and modules they load). */
  const scriptsLoaded = () => new Set(performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'script').map((e) => e.name));

  /**
   * Why `doc`'s scripts could make secrets its markup does not show, or null when they cannot.
   * `sameList`: `doc` is a later page of the list the rendered page shows (paging), so it runs no script
   * the rendered page does not (a detail page is another template, with scripts of its own).
   */
  async function scriptSecrets(doc, timeoutMs, sameList) {
    const re = markers();
    const files = new Set();
    for (const s of doc.querySelectorAll('script')) {
      if (s.hasAttribute('src')) {
        try {
          const u = new URL(s.getAttribute('src').trim(), s.baseURI);
          if (/^(https?|data):$/.test(u.protocol)) files.add(u.href);
        } catch {
          // not a URL: the browser loads nothing either
        }
      } else if (re.test(s.textContent)) return 'an inline script';
    }
    // Handler attributes, found by the parser's own index rather than a walk over every element.
    const handlers = handlersOf(doc);
    for (const a of handlers) if (re.test(a.value)) return `an ${a.name} handler`;
    // What this page's scripts loaded besides (chunks, modules): a fetched page of it loads them too.
    const loaded = scriptsLoaded();
    const fresh = sameList ? newScript(doc, handlers, loaded) : null;
    if (fresh) return fresh;
    for (const f of loaded) files.add(f);
    const named = await Promise.all([...files].map((f) => scriptNames(f, re, loaded, timeoutMs)));
    const i = named.findIndex((v) => v !== false);
    if (i < 0) return null;
    const file = [...files][i];
    return named[i] === null ? `a script file that could not be read (${file})` : `a script file (${file})`;
  }

  /**
   * Start reading the script files this page runs (those it names and those its scripts loaded), as a
   * fetched page of its list will need them read (scriptSecrets): a read under way is shared, so the
   * reading overlaps the fetches instead of following them.
   */
  const warmScripts = (timeoutMs) => {
    const re = markers();
    const loaded = scriptsLoaded();
    const files = new Set(loaded);
    for (const s of document.scripts) if (s.src && /^(https?|data):/.test(s.src)) files.add(s.src);
    for (const f of files) scriptNames(f, re, loaded, timeoutMs);
  };

  /**
   * Fetch `url` (same origin as this page) and parse it: {doc, url, status, redirected}. `cacheFirst`:
   * a copy in the HTTP cache, fresh or stale, is taken without asking the server (re-reading the
   * page the tab shows, whose copy it is when the page let it be stored). `onText(text, url)`: the HTML
   * as it came, before it is parsed (a walk learns the next link's URL from it early: fetch_walk.js).
   * `place` ({pool, size, ticket}): the request waits for a place at the site first (page/places.js),
   * and gives it back once the body has come; `ms` is then the request's own time, place to body.
   */
  // Over HTTP/1 the browser opens at most 6 connections to a site, and holds the other requests asked of it
  // in its own queue; over HTTP/2 or 3 every request asked would be at the site at once. The page's own
  // load tells which (same origin as every page fetched here; a load from the cache tells nothing).
  const http1 = () => /^http\/1/.test(performance.getEntriesByType('navigation')[0]?.nextHopProtocol || '');

  agent.fetchDocument = async (raw, timeoutMs, cacheFirst = false, signal = null, onText = null, place = null) => {
    let url;
    try {
      url = bare(new URL(String(raw), location.href).href);
    } catch {
      throw new agent.PageError('invalid_params', `${JSON.stringify(raw)} is not a URL`, { reason: 'not_a_url' });
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== location.origin) {
      throw new agent.PageError('invalid_params', `${url.href} is not on this page's origin (${location.origin}): only same-origin pages are fetched`, { url: url.href, reason: 'cross_origin' });
    }
    const giveBack = place ? await agent.takePlace(place) : null;
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    signal?.addEventListener('abort', () => controller.abort(), { once: true }); // the walk stopped
    if (signal?.aborted) controller.abort(); // while the request waited for its place
    let response;
    let text;
    let ms = null;
    try {
      // What a navigation asks for: some servers answer */* with JSON.
      response = await fetch(url.href, { credentials: 'same-origin', redirect: 'follow', cache: cacheFirst ? 'force-cache' : 'default', signal: controller.signal, headers: { Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' } });
      const final = response.url || url.href;
      // A same-origin link that redirects to another origin is not read, even when that origin lets
      // it be (Access-Control-Allow-Origin: *): rendering would have left the site, so does the run.
      if (new URL(final).origin !== location.origin) {
        controller.abort();
        throw new agent.PageError('navigation_redirect', `${url.href} redirected to another site (${new URL(final).origin}); the run stops before reading it`, { url: url.href, to: new URL(final).origin });
      }
      if (response.status >= 400) {
        throw new agent.PageError('http_error', `${final} answered HTTP ${response.status}`, { url: final, status: response.status });
      }
      const type = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
      if (!HTML.has(type)) {
        throw new agent.PageError('not_html', `${final} is ${type || 'of no content type'}, not an HTML page`, { url: final, type, status: response.status });
      }
      text = await response.text();
    } catch (err) {
      if (err instanceof agent.PageError) throw err;
      if (controller.signal.aborted) throw new agent.PageError('timeout', `fetching ${url.href} took longer than ${timeoutMs} ms`, { url: url.href });
      // A redirect to another origin lands here too (the fetch is refused without CORS headers).
      if (await redirects(url, timeoutMs)) {
        throw new agent.PageError('navigation_redirect', `${url.href} redirected, and could not be followed on this page's origin; the run stops before reading it`, { url: url.href });
      }
      throw new agent.PageError('navigation_failed', `fetching ${url.href} failed: ${err && err.message ? err.message : String(err)}`, { url: url.href, reason: 'fetch_failed' });
    } finally {
      clearTimeout(timer);
      if (giveBack) {
        ms = Math.round((performance.now() - started) * 10) / 10;
        giveBack();
      }
    }
    const final = response.url || url.href;
    onText?.(text, final);
    const doc = new DOMParser().parseFromString(text, 'text/html');
    // A parsed document's URL is this page's: links and images must resolve against the fetched one.
    const base = doc.querySelector('base[href]');
    if (base) base.setAttribute('href', new URL(base.getAttribute('href'), final).href);
    else {
      const b = doc.createElement('base');
      b.setAttribute('href', final);
      doc.head.prepend(b);
    }
    return { doc, url: final, status: response.status, redirected: response.redirected, refresh: response.headers.has('refresh'), decoded: agent.decodedAlike(response.headers.get('content-type'), text), ms };
  };

  /**
   * Rows of `selector` (default: the whole document, one row) read from the page at `url`, with
   * extract's fields and redaction: extract's answer plus `status`, `redirected` and, with
   * `next_selector`, `next` (see nextTarget). `final_url` travels beside the JSON for the worker's
   * site check. With a `place`, the answer's `ms` is the request's own time (fetchDocument).
   */
  agent.fetchExtract = async ({ url, selector = null, fields, limit = null, maxChars, nextSelector = null, timeoutMs = 10_000, cacheFirst = false, onNext = null, onText = null, signal = null, place = null }) => {
    const rows = typeof selector === 'string' && selector.trim() ? selector : ':root';
    if (nextSelector !== null && (typeof nextSelector !== 'string' || !nextSelector.trim())) {
      throw new agent.PageError('invalid_params', 'next_selector must be a CSS selector');
    }
    const plans = agent.fieldPlans(fields);
    agent.queryAll(rows, document); // an invalid selector is invalid_selector before anything is fetched
    if (nextSelector) agent.queryAll(nextSelector, document);
    const loading = agent.fetchDocument(url, timeoutMs, cacheFirst, signal, onText, place);
    loading.catch(() => {}); // awaited below; a failure is not "unhandled" if the line between throws
    // The page's request leaves first; the scripts its checks need are read while it travels.
    warmScripts(timeoutMs);
    const page = await loading;
    const extra = { status: page.status, redirected: page.redirected };
    if (page.ms !== null) extra.ms = page.ms; // it took a place at the site (fetchDocument)
    if (http1()) extra.http1 = true;
    // Whether follow's check needs no render (a page of a paged list is never a detail page).
    if (!nextSelector && page.decoded && !page.refresh && agent.runsNothing(page.doc)) extra.inert = true;
    if (nextSelector) extra.next = agent.nextTarget(page.doc, nextSelector, false, page.url);
    // The page after this one is on its way while this one is checked and read (its own checks are
    // made when it is read: a request reads nothing).
    if (onNext && extra.next && extra.next.url && extra.next.same_origin) onNext(extra.next.url);
    // This very page fetched again (the engine's test of whether fetching reads what rendering
    // shows): where the page's own scripts made secrets the HTML does not mark (a data-sensitive set
    // later, a field turned into a password), the fetched copies would show them in clear.
    if (bare(page.url).href === bare(location.href).href) {
      const live = Math.max(agent.secretRoots(document).length, agent.secretsSeen());
      const fetched = agent.secretRoots(page.doc).length;
      if (live > fetched) {
        throw new agent.PageError('secret_unmaskable', `${live - fetched} secret element(s) on this page are made secret by its scripts, which a fetched page does not run: pages must be rendered`, { reason: 'secrets_by_script' });
      }
    }
    // A later page of the list (paging, and it shows rows; a sign-in page a redirect ended on is the
    // host's to tell by its URL) runs no script the rendered page does not.
    const sameList = Boolean(nextSelector) && agent.queryAll(rows, page.doc).length > 0;
    const why = await scriptSecrets(page.doc, timeoutMs, sameList);
    if (why) {
      throw new agent.PageError('secret_unmaskable', `${page.url}: ${why} may mark secrets, which a fetched page does not run: it is to be rendered`, { url: page.url, reason: 'secrets_by_script' });
    }
    const cap = Number.isInteger(limit) && limit >= 0 ? limit : null;
    agent.forgetPositions();
    const { json } = agent.rowsAnswer(page.doc, agent.queryAll(rows, page.doc), plans, cap, maxChars, extra, page.url);
    const next = extra.next && extra.next.same_origin ? extra.next.url : null;
    return { json, final_url: page.url, next };
  };
})();
