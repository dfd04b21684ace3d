// Whether a script's text can spell a secret marker from pieces. A fetched page runs no script, so a
// script that would mark secrets on it (a class or attribute of the redaction list, a password type)
// makes fetching read in clear what rendering redacts; page/fetch.js renders such pages. Reading the
// name spelled out is not enough: the same script can build it at run time (`'data-sens' + 'itive'`,
// two constants, an escape), and run on the first page too, where nothing matches its condition, so
// nothing there shows what it does elsewhere. So a marker counts as named when the script's string
// literals, decoded and lower-cased (attribute names are not case-sensitive), can be laid end to end
// to spell it. Pieces of one character are left out: minified libraries are full of them, and a
// name built from single letters is the place where reading a script's text stops telling anything
// (the result says so: such a page reads as fetched; see DESIGN's fetched-equals-rendered note).
(() => {
  const agent = globalThis.__tabpilotAgent.use('script_names', {
    needs: [],
    provides: ['spellsMarker', 'scriptVerdict', 'entryVerdict', 'runsNothing', 'decodedAlike'],
  });
  const MIN_PIECE = 2;
  const KEYWORD_BEFORE_REGEX = /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|instanceof|yield|await)$/;

  /** A literal's text as the script sees it: escapes (`\x64`, `\u0064`, `\u{64}`, `\d`) decoded. */
  const decode = (raw) => raw.replace(/\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|([\s\S]))/g, (m, x, u1, u2, c) => {
    const code = x || u1 || u2;
    if (code) {
      const n = parseInt(code, 16);
      return n <= 0x10ffff ? String.fromCodePoint(n) : '';
    }
    return c === '\n' ? '' : c;
  });

  /** Where the `${` expression starting at `i` ends (its `}`), strings and nested braces skipped. */
  function exprEnd(text, i) {
    for (let depth = 0; i < text.length; i += 1) {
      const c = text[i];
      if (c === '\\') i += 1;
      else if (c === '{') depth += 1;
      else if (c === '}' && --depth <= 0) return i;
      else if (c === '"' || c === "'" || c === '`') i = literalEnd(text, i);
    }
    return text.length;
  }

  /** Where the string or template literal opening at `i` ends (its closing quote). */
  function literalEnd(text, i) {
    const q = text[i];
    for (let j = i + 1; j < text.length; j += 1) {
      const c = text[j];
      if (c === '\\') j += 1;
      else if (c === q || (q !== '`' && c === '\n')) return j;
      else if (q === '`' && c === '$' && text[j + 1] === '{') j = exprEnd(text, j + 1);
    }
    return text.length;
  }

  /**
   * The pieces a script can join: its string literals and template literals' fixed parts (those in
   * `${…}` included), decoded and lower-cased. Comments and regex literals are skipped as a reader of
   * the language would, so a quote in them does not hide the strings after it.
   */
  const NEXT = /[/"'`]/g; // where a comment, a literal or a regex literal may start

  function piecesOf(text, out = new Set()) {
    const add = (raw) => {
      const s = decode(raw).toLowerCase();
      if (s.length >= MIN_PIECE) out.add(s);
    };
    // The code since the last literal (from `after`) tells a regex from a division; only the places
    // where one may start are visited (a character at a time costs a large library tens of ms).
    let after = 0;
    let literal = false;
    for (let i = 0; i < text.length; i += 1) {
      NEXT.lastIndex = i;
      const found = NEXT.exec(text);
      if (!found) break;
      i = found.index;
      const c = text[i];
      const next = text[i + 1];
      if (c === '/' && next === '/') {
        i = text.indexOf('\n', i);
        if (i < 0) break;
      } else if (c === '/' && next === '*') {
        i = text.indexOf('*/', i + 2);
        if (i < 0) break;
        i += 1;
      } else if (c === '"' || c === "'") {
        const j = literalEnd(text, i);
        add(text.slice(i + 1, j));
        i = j;
        [after, literal] = [j + 1, true];
      } else if (c === '`') {
        const j = literalEnd(text, i);
        const body = text.slice(i + 1, j);
        let from = 0;
        for (let k = 0; k < body.length; k += 1) {
          if (body[k] === '\\') k += 1;
          else if (body[k] === '$' && body[k + 1] === '{') {
            add(body.slice(from, k));
            const end = exprEnd(body, k + 1);
            piecesOf(body.slice(k + 2, end), out);
            from = end + 1;
            k = end;
          }
        }
        add(body.slice(from));
        i = j;
        [after, literal] = [j + 1, true];
      } else {
        const from = Math.max(after, i - 16);
        const before = (literal && from === after ? 'x' : '') + text.slice(from, i);
        if (!/[\w$)\]]\s*$/.test(before) || KEYWORD_BEFORE_REGEX.test(before.trimEnd())) {
          // A regex literal: up to its unescaped closing slash outside a character class.
          let j = i + 1;
          for (let cls = false; j < text.length && text[j] !== '\n'; j += 1) {
            if (text[j] === '\\') j += 1;
            else if (text[j] === '[') cls = true;
            else if (text[j] === ']') cls = false;
            else if (text[j] === '/' && !cls) break;
          }
          i = j;
          [after, literal] = [j + 1, true];
        }
      }
    }
    return out;
  }

  const EDGE = /[\w-]/; // what may not touch a marker's name on either side (`case-sensitive` is none)

  /**
   * Whether `word` can be laid out of `pieces` end to end: the first piece may start before the word
   * (`"x data-sens"`) and the last end after it (`"itive x"`), where nothing name-like touches it.
   */
  function spells(word, pieces, edge) {
    const reach = new Array(word.length + 1).fill(false); // reach[i]: word[0, i) is laid
    for (const p of pieces) {
      for (let k = Math.min(p.length, word.length); k >= MIN_PIECE; k -= 1) {
        const before = p[p.length - k - 1];
        if (p.endsWith(word.slice(0, k)) && !(before && edge.test(before))) reach[k] = true;
      }
    }
    if (reach[word.length]) return true;
    for (const p of pieces) {
      for (let at = p.indexOf(word); at >= 0; at = p.indexOf(word, at + 1)) {
        if (!edge.test(p[at - 1] || ' ') && !edge.test(p[at + word.length] || ' ')) return true;
      }
    }
    for (let i = MIN_PIECE; i < word.length; i += 1) {
      if (!reach[i]) continue;
      const rest = word.slice(i);
      for (const p of pieces) {
        if (p.length >= rest.length && p.startsWith(rest) && !edge.test(p[rest.length] || ' ')) return true;
        if (p.length < rest.length && rest.startsWith(p)) reach[i + p.length] = true;
      }
    }
    return false;
  }

  const IN_NAME = /[a-z0-9_.$]/; // `password` may sit in a longer name (`new-password`), not in a word

  /**
   * Whether `text` (a script) holds pieces that spell one of `words` (lower-case marker names) as a
   * name of its own, one of `inside` as a part of a name (`password` in `new-password`), or one of
   * `built` from two pieces or more.
   */
  agent.spellsMarker = (text, words, inside = [], built = []) => {
    if (!text || !(words.length || inside.length || built.length)) return false;
    const pieces = piecesOf(text);
    if (words.some((w) => spells(w, pieces, EDGE)) || inside.some((w) => spells(w, pieces, IN_NAME))) return true;
    // A `dataset` key alone is a common word (`private`): only one built from pieces counts.
    return built.some((w) => spells(w, new Set([...pieces].filter((p) => !p.includes(w))), EDGE));
  };

  // What makes a rendered page read otherwise than its served HTML parsed: a script (an element, or a
  // handler attribute: `<img onerror>` runs at load), a frame or plugin whose document may reach into
  // it, a noscript (parsed as markup only where scripts do not run), a declarative shadow root
  // (attached by rendering alone) or a refresh that leaves the page. A page with none of them is its
  // served HTML, rendered or not.
  const MAY_DIFFER = 'script, noscript, iframe, frame, object, embed, template[shadowrootmode], template[shadowroot], meta[http-equiv="refresh" i]';

  /** Whether the parsed document `doc` holds nothing that would read otherwise rendered (above). */
  agent.runsNothing = (doc) => !doc.querySelector(MAY_DIFFER) && doc.evaluate("count(//@*[starts-with(name(), 'on')])", doc, null, XPathResult.NUMBER_TYPE, null).numberValue === 0;

  /**
   * Whether a page's text read as UTF-8 (a fetch's text()) is the text a browser shows for it: the
   * answer's Content-Type says UTF-8, or the text is ASCII, the same in every encoding a page may be
   * in. Otherwise (another charset, one a meta tag alone names, a byte order mark) rendering may decode
   * it otherwise.
   */
  agent.decodedAlike = (contentType, text) => /;\s*charset\s*=\s*["']?utf-?8["']?\s*(;|$)/i.test(contentType || '') || !/[^\x00-\x7f]/.test(text);

  // Whether a script names a marker depends on its text and the markers alone, and reading a library
  // costs a document tens of ms of its main thread (the fetched pages' answers wait behind it). So the
  // worker keeps the verdicts (worker/lib/script_verdicts.js), by a SHA-256 of the markers and the
  // text: the same file met again on the next document of the site, the next run or another list is
  // not read again, and a file whose text changed is a new key. Without WebCrypto (a page that is no
  // secure context) or the worker's answer, the text is read here as before.
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

  async function digest(text) {
    if (!globalThis.crypto?.subtle) return null;
    return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  }

  const ask = async (key) => {
    const known = await chrome.runtime.sendMessage({ type: 'script_verdict', key });
    return known && typeof known.named === 'boolean' ? known.named : null;
  };
  const tell = (key, named) => chrome.runtime.sendMessage({ type: 'script_verdict', key, named }).catch(() => {});

  // Even a verdict kept costs reading the file out of the HTTP cache and hashing it, on every new
  // document (a run that navigates first: ~2 ms a file, a dozen files a page). Which file the cache
  // holds is told by its headers, before its body is read: the same URL with the same strong validator
  // (RFC 9110 8.8.1: one that changes whenever the bytes do; an ETag not marked weak, or a
  // Last-Modified well before the answer's Date) and the same length and encoding is the same file,
  // however often the browser revalidated it (a 304 moves the entry's Date, not its body). So its
  // verdict is kept under that entry too. Without a strong validator the text decides, as before.
  const STRONG_AFTER_MS = 60_000; // RFC 9110 8.8.2.2: when a cache may take a Last-Modified as strong
  function entryOf(response) {
    const h = response.headers;
    const date = Date.parse(h.get('date') || '');
    const etag = h.get('etag') || '';
    const modified = Date.parse(h.get('last-modified') || '');
    if (!response.url || !((etag && !/^W\//i.test(etag)) || modified <= date - STRONG_AFTER_MS)) return null;
    const parts = ['etag', 'last-modified', 'content-length', 'content-encoding', 'content-type'].map((n) => h.get(n) || '');
    return [response.url, response.status, ...parts].join('\n');
  }

  /** The key of the verdict on the cache entry `file` holds (a Response, or the headers the worker saw
   * the tab load it with: {url, status, headers}) for `markers`, or null without a strong validator. */
  const entryKey = async (file, markers) => {
    const entry = entryOf(file);
    return entry && digest(`entry\n${markers.source}\n${entry}`);
  };

  /** The worker's verdict on the cache entry `file` (as entryKey) for `markers`, or null when it has none:
   * nothing is read. */
  agent.entryVerdict = async (file, markers) => {
    try {
      const key = await entryKey(file, markers);
      return key && (await ask(key));
    } catch {
      return null; // no worker to ask
    }
  };

  /**
   * Whether the script `file` (its text, or the Response the HTTP cache gave for it) names a marker of
   * `markers` ({source, test}: fetch.js's markers()), from the worker's verdicts when it has one for
   * that file and those markers, else by `markers.test`.
   */
  agent.scriptVerdict = async (file, markers) => {
    let byEntry = null;
    if (typeof file !== 'string') {
      try {
        byEntry = await entryKey(file, markers);
        const known = byEntry && (await ask(byEntry));
        if (known !== null) {
          file.body?.cancel().catch(() => {});
          return known;
        }
      } catch {
        byEntry = null; // no worker to ask: the text is read
      }
    }
    const text = typeof file === 'string' ? file : await file.text();
    let key = null;
    try {
      key = await digest(`${markers.source}\n${text}`);
      const known = key && (await ask(key));
      if (known !== null) {
        if (byEntry) tell(byEntry, known);
        return known;
      }
    } catch {
      key = null; // no worker to ask (or to tell): read here
    }
    const named = markers.test(text);
    for (const k of [key, byEntry]) if (k) tell(k, named);
    return named;
  };
})();
