// The page agent's core. It is injected (with the other page/*.js files) into the extension's
// isolated world of a document, never the page's own world: the page's scripts cannot see or patch
// it and its Content-Security-Policy does not apply. Each page file registers commands on one shared
// namespace and declares, with agent.use below, the names it takes from the files injected before it
// and the ones it adds; injecting the files again into the same document keeps the existing agent and
// its state.
// Classic scripts (not modules): chrome.scripting injects files as scripts. Answers are plain JSON.
(() => {
  // 2: page files declare themselves with agent.use, which an agent injected before lacks.
  const VERSION = 2;
  if (globalThis.__tabpilotAgent && globalThis.__tabpilotAgent.version === VERSION) return;

  /** A failure with one of the wire's stable error codes (extension/worker/protocol.js ERR values). */
  class PageError extends Error {
    constructor(code, message, data = null) {
      super(message);
      this.code = code;
      this.data = data;
    }
  }

  const describe = (el) => {
    const id = el.id ? `#${el.id}` : '';
    return `<${el.localName}${id}>`;
  };

  const agent = {
    version: VERSION,
    PageError,
    /** name -> async (args) => JSON-safe value. Page files add theirs. */
    commands: Object.create(null),
    /** What each page file declared: name -> {needs, provides, later}. */
    files: Object.create(null),
    describe,

    /**
     * Declare page file `file` and answer the agent it works on. `needs`: names it takes from files
     * injected before it; `provides`: names it adds (`commands.x` for a command); `later`: names it
     * reads only while a command runs, added by files injected after it. A record, not a gate (the
     * files are checked against it by tests/unit/extension/test_page_agent_contract.py), so it costs nothing.
     */
    use(file, declared) {
      agent.files[file] = declared;
      return agent;
    },

    /** Run one command; the worker turns {error} back into a CommandError. */
    async run(name, args) {
      const fn = agent.commands[name];
      if (!fn) return { error: { code: 'unknown_command', message: `the page agent has no command ${JSON.stringify(name)}` } };
      try {
        if (Array.isArray(args.redact)) agent.setRedaction(args.redact);
        if (Array.isArray(args.patterns)) agent.setPatterns(args.patterns);
        return { ok: await fn(args) };
      } catch (err) {
        // A message may quote what the agent passed, and that may be a secret typed into the page.
        const scrub = (text) => (agent.scrubText ? agent.scrubText(text) : text);
        if (err instanceof PageError) return { error: { code: err.code, message: scrub(err.message), data: err.data } };
        return { error: { code: 'internal_error', message: scrub(`${name} failed in the page: ${err && err.message ? err.message : String(err)}`) } };
      }
    },

    /**
     * querySelectorAll that reports a bad selector as invalid_selector (not a DOMException). Attribute
     * value tests never match secrets (page/redact.js safeSelector): no selector is an oracle.
     */
    queryAll(selector, root = document) {
      try {
        const plain = agent.maskedQuery ? agent.maskedQuery(selector, root) : null;
        if (plain) return plain;
        const found = root.querySelectorAll(agent.safeSelector ? agent.safeSelector(selector) : selector);
        // An element remembered as secret that no selector marks any more is filtered here.
        return agent.valueTests && agent.valueTests(selector) ? [...found].filter((el) => !agent.isSensitive(el)) : found;
      } catch (err) {
        throw new PageError('invalid_selector', `${JSON.stringify(selector)} is not a valid CSS selector: ${err.message}`, { selector });
      }
    },

    query(selector, root = document) {
      try {
        if (agent.valueTests && agent.valueTests(selector)) return agent.queryAll(selector, root)[0] || null;
        return root.querySelector(agent.safeSelector ? agent.safeSelector(selector) : selector);
      } catch (err) {
        throw new PageError('invalid_selector', `${JSON.stringify(selector)} is not a valid CSS selector: ${err.message}`, { selector });
      }
    },

    /** The element a command targets: `ref` (from a snapshot) or `selector` (first match). */
    resolve({ ref, selector }) {
      if (ref) {
        if (!agent.resolveRef) {
          throw new PageError('stale_ref', `${ref} is not known on this page (it was reloaded or navigated): take a new snapshot (observe what=page) and use its refs`, { ref });
        }
        return agent.resolveRef(ref);
      }
      if (typeof selector !== 'string' || !selector) throw new PageError('invalid_params', 'give a ref (@e5) or a CSS selector');
      const el = agent.query(selector);
      if (!el) throw new PageError('element_not_found', `no element matches ${JSON.stringify(selector)}`, { selector });
      return el;
    },

    /** The agent of the same-origin document whose frame holds this one (null: the top, or another origin). */
    parentAgent() {
      try {
        const up = window.parent !== window ? window.parent.__tabpilotAgent : null;
        return up && up !== agent ? up : null;
      } catch {
        return null;
      }
    },

    /** Rendered and not hidden by CSS (display, visibility, content-visibility, zero size). */
    isVisible(el) {
      if (!el.isConnected) return false;
      if (typeof el.checkVisibility === 'function') {
        if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) return false;
      }
      const rect = el.getBoundingClientRect();
      return rect.width > 0 || rect.height > 0 || el.getClientRects().length > 0;
    },
  };

  agent.commands.bounds = (args) => {
    const el = agent.resolve(args);
    const r = el.getBoundingClientRect();
    return {
      x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height),
      scroll_x: Math.round(globalThis.scrollX), scroll_y: Math.round(globalThis.scrollY),
      device_pixel_ratio: globalThis.devicePixelRatio || 1,
    };
  };

  agent.use('core', {
    provides: ['version', 'PageError', 'commands', 'files', 'describe', 'use', 'run', 'queryAll', 'query', 'resolve', 'parentAgent', 'isVisible', 'commands.bounds'],
    later: ['setRedaction', 'setPatterns', 'scrubText', 'safeSelector', 'valueTests', 'maskedQuery', 'isSensitive', 'resolveRef'],
  });
  globalThis.__tabpilotAgent = agent;
})();
