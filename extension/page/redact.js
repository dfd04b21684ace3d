// Redaction inside the page: secrets are replaced before any value leaves the document. Password
// inputs and elements matching the configured selectors (default: [data-sensitive], [data-private],
// .sensitive) come out as "[REDACTED]" through text, html, attributes and input values alike.
(() => {
  const agent = globalThis.__tabpilotAgent;
  const REDACTED = '[REDACTED]';
  const DEFAULT = ['input[type=password]', '[data-sensitive]', '[data-private]', '.sensitive'];
  let selectors = DEFAULT;
  let joined = DEFAULT.join(',');

  agent.REDACTED = REDACTED;

  /** Use `list` (from the worker, which keeps the user's setting); invalid entries are skipped. */
  agent.setRedaction = (list) => {
    const valid = list.filter((s) => {
      try {
        document.createDocumentFragment().querySelector(s);
        return true;
      } catch {
        return false;
      }
    });
    // A password input is a secret whatever the setting says.
    selectors = valid.includes('input[type=password]') ? valid : ['input[type=password]', ...valid];
    joined = selectors.join(',');
  };

  /** The selector list that marks a secret (for walkers that test each element once). */
  agent.sensitiveSelector = () => joined;

  /** Is `el` (or an ancestor) a secret? */
  agent.isSensitive = (el) => el.nodeType === 1 && el.closest(joined) !== null;

  /** Does anything inside `el` (or `el` itself) need redacting? */
  agent.hasSensitive = (el) => agent.isSensitive(el) || el.querySelector(joined) !== null;

  const normalise = (s) => s.replace(/\s+/g, ' ').trim();

  /** Text of `el`, whitespace-normalised, with every secret subtree replaced by [REDACTED]. */
  agent.redactedText = (el) => {
    if (agent.isSensitive(el)) return REDACTED;
    if (el.querySelector(joined) === null) return normalise(el.textContent || '');
    const parts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 1 && n.matches(joined)) {
          parts.push(` ${REDACTED} `);
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) parts.push(n.data);
    }
    return normalise(parts.join(''));
  };

  /** innerHTML (or outerHTML) of `el` with secret subtrees emptied and password values dropped. */
  agent.redactedHtml = (el, outer = false) => {
    if (agent.isSensitive(el)) return REDACTED;
    if (el.querySelector(joined) === null) return outer ? el.outerHTML : el.innerHTML;
    const copy = el.cloneNode(true);
    for (const secret of copy.querySelectorAll(joined)) {
      if (secret.localName === 'input') secret.setAttribute('value', REDACTED);
      else secret.textContent = REDACTED;
      for (const attr of [...secret.attributes]) {
        if (!['class', 'id', 'type', 'name', 'value', 'data-sensitive', 'data-private'].includes(attr.name)) {
          secret.setAttribute(attr.name, REDACTED);
        }
      }
    }
    return outer ? copy.outerHTML : copy.innerHTML;
  };

  /** Attribute `name` of `el`, or [REDACTED] when `el` is a secret. */
  agent.redactedAttr = (el, name) => {
    const value = el.getAttribute(name);
    if (value === null) return null;
    return agent.isSensitive(el) ? REDACTED : value;
  };

  /** The current value of a form control, or [REDACTED] for a secret one. */
  agent.redactedValue = (el) => (agent.isSensitive(el) ? REDACTED : el.value);

  /** Replace every known secret value on the page that occurs in `text` (for free-form output). */
  agent.scrubText = (text) => {
    if (typeof text !== 'string' || !text) return text;
    let out = text;
    for (const el of document.querySelectorAll(joined)) {
      for (const secret of [el.value, el.textContent]) {
        if (typeof secret === 'string' && secret.trim().length >= 3) out = out.split(secret.trim()).join(REDACTED);
      }
    }
    return out;
  };
})();
