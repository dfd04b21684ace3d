// Fetched pages whose scripts would run, checked against the same pages rendered: a sample for each
// set of scripts. What a script makes secret cannot be told from its text in general (a name decoded
// at run time, a node moved into a secret, a rule the server sends), and the rendered first page says
// nothing of what the same script does elsewhere (it may act only where the content or the address
// calls for it). So the first fetched pages that run a given set of scripts (and then the 4th, the
// 8th, the 16th...) are also rendered, out of sight (a frame in a closed shadow root of this page,
// sandboxed: it cannot move the tab), and their rows read there with the same fields and redaction.
// Rows that differ from the fetched ones mean the scripts change what is read, secrets included: that
// page, and every later page with those scripts, is rendered in the tab instead (page/fetch.js
// refuses them). A sample, not a proof: a script that acts only on pages between the sampled ones, or
// only when it is not in a frame, is not seen here.
(() => {
  const agent = globalThis.__tabpilotAgent.use('render_check', {
    needs: ['queryAll', 'rowsAnswer'],
    provides: ['renderedDiffers'],
  });
  // A site that forbids being framed cannot be checked this way: such pages read as fetched (the other
  // rules of page/fetch.js still apply to them).
  const runs = new Map(); // scripts' signature + what is read -> {n: pages asked, differs: null | why}
  const SAMPLED = 2; // pages rendered besides their fetch for each set of scripts, before the 4th, 8th...

  const SHAPE_PARTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\b\d[\w.]*/g;
  const shapeOf = (code) => code.replace(SHAPE_PARTS, (m) => (m[0] === '/' ? '' : /\d/.test(m[0]) ? '0' : '""')).replace(/\s+/g, '');

  /** The scripts `doc` runs, as a key: files by address, inline code and handlers by shape; '' for none. */
  function signatureOf(doc) {
    const parts = [];
    for (const s of doc.querySelectorAll('script')) {
      const type = (s.getAttribute('type') || '').trim();
      if (type && !/^(module|(text|application)\/(x-)?(java|ecma)script|text\/jscript)$/i.test(type)) continue;
      if (s.hasAttribute('src')) parts.push(`src:${s.src}`);
      else if (s.textContent.trim()) parts.push(`js:${shapeOf(s.textContent)}`);
    }
    const handlers = doc.evaluate("//@*[starts-with(name(), 'on')]", doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < handlers.snapshotLength; i += 1) parts.push(`on:${shapeOf(handlers.snapshotItem(i).value)}`);
    return parts.join('\n');
  }

  /** `url` rendered in a hidden sandboxed frame: its document once loaded, or null (refused, timed out). */
  function render(url, timeoutMs) {
    return new Promise((resolve) => {
      const host = document.createElement('tabpilot-check');
      host.style.cssText = 'position:fixed;left:-20000px;top:0;width:1280px;height:800px;visibility:hidden;pointer-events:none';
      const root = host.attachShadow({ mode: 'closed' });
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
      frame.style.cssText = 'width:1280px;height:800px;border:0';
      let timer = null;
      const done = (doc) => {
        clearTimeout(timer);
        resolve(doc);
        // Read first, then gone: the page's own scripts never meet it afterwards.
        queueMicrotask(() => host.remove());
      };
      timer = setTimeout(() => done(null), timeoutMs);
      frame.addEventListener('load', () => {
        let doc = null;
        try {
          doc = frame.contentDocument;
        } catch {
          doc = null;
        }
        // What the page's load handlers set off runs before the rows are read (a task later).
        const { port1, port2 } = new MessageChannel();
        port1.onmessage = () => done(doc && doc.location.origin === location.origin ? doc : null);
        port2.postMessage(0);
      }, { once: true });
      frame.src = url;
      root.append(frame);
      document.documentElement.append(host);
    });
  }

  const rowsOf = (doc, selector, plans, maxChars, url) => {
    try {
      return JSON.parse(agent.rowsAnswer(doc, agent.queryAll(selector, doc), plans, null, maxChars, null, url).json).rows;
    } catch {
      return null;
    }
  };

  /**
   * Why the page at `url`, fetched as `doc`, does not read as it would rendered (its rows, fields and
   * redaction), or null. Checked for the first SAMPLED pages with these scripts and fields, then for the
   * 4th, 8th, 16th...; once one differs, every later page with them differs.
   */
  agent.renderedDiffers = async ({ url, doc, selector, plans, maxChars, timeoutMs }) => {
    const scripts = signatureOf(doc);
    if (!scripts) return null; // nothing would run there: fetched is rendered
    const key = `${scripts}\n${selector}\n${JSON.stringify(plans)}`;
    let seen = runs.get(key);
    if (!seen) {
      if (runs.size >= 32) runs.delete(runs.keys().next().value);
      runs.set(key, (seen = { n: 0, differs: null }));
    }
    if (seen.differs) return seen.differs;
    seen.n += 1;
    if (seen.n > SAMPLED && (seen.n & (seen.n - 1)) !== 0) return null;
    // The fetched copy is read first: reading the rendered one remembers the secrets it shows, and
    // a value remembered is masked everywhere after (the fetched copy would then look redacted too).
    const fetched = JSON.stringify(rowsOf(doc, selector, plans, maxChars, url));
    const shown = await render(url, timeoutMs);
    if (!shown || seen.differs) return seen.differs;
    if (JSON.stringify(rowsOf(shown, selector, plans, maxChars, url)) === fetched) return null;
    seen.differs = 'its scripts change what is read there (rendered, it reads otherwise)';
    return seen.differs;
  };
})();
