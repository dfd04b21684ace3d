// Whether the page holds secrets the agent did not type: a secret element (redact.js decides which)
// with a value or text of its own. A script the agent runs can read anything the page can and
// encode it past any scrubbing, so on such a page scripts need the person's consent
// (worker/lib/consent.js); a secret the agent typed itself it knows already.
(() => {
  const agent = globalThis.__tabpilotAgent.use('held', {
    needs: ['secretRoots', 'treesOf'],
    provides: ['noteTyped', 'commands.secrets_held'],
  });
  if (agent.noteTyped) return;
  // What the agent left in each secret field it typed into; a field the page changed since is the page's.
  const typed = new WeakMap();

  /** The agent typed into secret field `el`: its current value is the agent's own. */
  agent.noteTyped = (el) => {
    if (el && 'value' in el) typed.set(el, el.value);
  };

  const ownValue = (el) => {
    if (el.localName === 'select') return [...el.selectedOptions].some((o) => o.value || o.text);
    if (el.localName === 'input' || el.localName === 'textarea') return el.value !== '' && typed.get(el) !== el.value;
    return (el.textContent || '').trim() !== '' || [...el.querySelectorAll('input,textarea,select')].some(ownValue);
  };

  // The document, its shadow roots (open and closed) and same-origin frames, as the redaction walks them.
  function* roots(doc) {
    for (const tree of agent.treesOf(doc)) {
      yield tree;
      for (const el of tree.querySelectorAll('iframe, frame')) {
        try {
          if (el.contentDocument) yield* roots(el.contentDocument);
        } catch {
          // another origin: its own document, its own agent
        }
      }
    }
  }

  /** {held: n}: how many secret elements hold a value or text the agent did not type. */
  agent.commands.secrets_held = () => {
    let held = 0;
    for (const root of roots(document)) {
      for (const el of agent.secretRoots(root)) if (ownValue(el)) held += 1;
    }
    return { held };
  };
})();
