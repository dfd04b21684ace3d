// wait_for inside the page: until a selector is visible/hidden/attached/detached or a text is shown.
// It re-checks when the DOM changes (MutationObserver) or a transition/animation ends, never on a
// timer; the only timer is the deadline.
(() => {
  const agent = globalThis.__tabpilotAgent;
  if (agent.commands.wait_for) return;
  const { PageError } = agent;
  const STATES = ['visible', 'hidden', 'attached', 'detached'];

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
      // innerText is what a person sees (no hidden, script or style text).
      const test = () => (document.body?.innerText || '').replace(/\s+/g, ' ').includes(needle);
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
