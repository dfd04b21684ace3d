// wait_for inside the page: until a selector is visible/hidden/attached/detached or a text is shown.
// It re-checks when the DOM changes (MutationObserver) or a transition/animation ends, never on a
// timer; the only timer is the deadline.
(() => {
  const agent = globalThis.__tabpilotAgent.use('wait', {
    needs: ['PageError', 'REDACTED', 'isVisible', 'maskPatterns', 'query', 'queryAll', 'secretRoots'],
    provides: ['commands.wait_for'],
  });
  if (agent.commands.wait_for) return;
  const { PageError } = agent;
  const STATES = ['visible', 'hidden', 'attached', 'detached'];
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);

  /**
   * The text a person sees, with secrets as [REDACTED] and secret-shaped text masked: what a text wait
   * matches, so it can never tell a right guess of a secret from a wrong one.
   */
  function shownText() {
    const body = document.body;
    if (!body) return '';
    const secrets = new Set(agent.secretRoots(document));
    let text;
    if (!secrets.size) text = body.innerText || '';
    else {
      const parts = [];
      const walker = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
        acceptNode: (n) => {
          if (n.nodeType === 3) return NodeFilter.FILTER_ACCEPT;
          const tag = n.localName;
          if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') return NodeFilter.FILTER_REJECT;
          if (secrets.has(n)) {
            parts.push(` ${agent.REDACTED} `);
            return NodeFilter.FILTER_REJECT;
          }
          if (!n.checkVisibility({ visibilityProperty: true }) && !n.checkVisibility()) return NodeFilter.FILTER_REJECT;
          if (!INLINE.has(tag)) parts.push(' ');
          return NodeFilter.FILTER_SKIP;
        },
      });
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement && n.parentElement.checkVisibility({ visibilityProperty: true })) parts.push(n.data);
      }
      text = parts.join('');
    }
    return agent.maskPatterns(text.replace(/\s+/g, ' '));
  }

  function condition(args) {
    if (args.selector) {
      const state = args.state || 'visible';
      if (!STATES.includes(state)) throw new PageError('invalid_params', `state must be one of ${STATES.join(', ')}`);
      agent.query(args.selector); // a bad selector fails now, not at the deadline
      const test = () => {
        const found = [...agent.queryAll(args.selector)];
        switch (state) {
          case 'attached': return found.length > 0;
          case 'detached': return found.length === 0;
          case 'visible': return found.some(agent.isVisible);
          default: return !found.some(agent.isVisible);
        }
      };
      const what = `${JSON.stringify(args.selector)} to be ${state}`;
      const now = () => {
        const found = [...agent.queryAll(args.selector)];
        const shown = found.filter(agent.isVisible).length;
        return `${found.length} element(s) match, ${shown} visible`;
      };
      return { test, what, now, matched: { selector: args.selector, state } };
    }
    if (typeof args.text === 'string' && args.text) {
      const needle = args.text.replace(/\s+/g, ' ').trim();
      const test = () => shownText().includes(needle);
      return { test, what: `the text ${JSON.stringify(needle)} to appear`, now: () => 'it is not on the page', matched: { text: needle } };
    }
    throw new PageError('invalid_params', 'wait_for needs selector, text or url');
  }

  agent.commands.wait_for = (args) => {
    const c = condition(args);
    if (c.test()) return c.matched;
    const limit = Number.isInteger(args.wait_ms) && args.wait_ms > 0 ? args.wait_ms : 10_000;
    return new Promise((resolve, reject) => {
      let observer = null;
      let timer = null;
      const recheck = () => {
        let ok;
        try {
          ok = c.test();
        } catch (err) {
          finish();
          reject(err);
          return;
        }
        if (ok) {
          finish();
          resolve(c.matched);
        }
      };
      const finish = () => {
        observer.disconnect();
        clearTimeout(timer);
        document.removeEventListener('transitionend', recheck, true);
        document.removeEventListener('animationend', recheck, true);
      };
      observer = new MutationObserver(recheck);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      document.addEventListener('transitionend', recheck, true);
      document.addEventListener('animationend', recheck, true);
      timer = setTimeout(() => {
        finish();
        reject(new PageError('timeout', `waited ${limit} ms for ${c.what}; ${c.now()}`, { retryable: true }));
      }, limit);
    });
  };
})();
