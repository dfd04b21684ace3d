// Scrubbing free text (a script's result, the page's console errors, an error message) of the secret
// values the page holds now and has held, and of secret-shaped text. Part of the guard with
// page/redact.js, which decides what is secret: the page-world script runner and the worker ask here.
(() => {
  const agent = globalThis.__tabpilotAgent.use('redact_scrub', {
    needs: ['REDACTED', 'knownValues', 'maskPatterns', 'secretRoots', 'structural', 'treesOf'],
    provides: ['scrubber', 'scrubText', 'commands.scrub', 'commands.secret_values'],
  });
  if (agent.scrubber) return;

  /** Every value and text a secret element in `doc` (its shadow roots included) holds (trimmed, 3+ characters). */
  const secretValues = (doc, into) => {
    for (const el of [...agent.treesOf(doc)].flatMap((tree) => agent.secretRoots(tree))) {
      for (const secret of [el.value, el.textContent, ...[...el.attributes].filter((a) => !agent.structural.has(a.name)).map((a) => a.value)]) {
        if (typeof secret === 'string' && secret.trim().length >= 3) into.add(secret.trim());
      }
      for (const inner of el.querySelectorAll('input, textarea, select')) {
        if (inner.value && inner.value.trim().length >= 3) into.add(inner.value.trim());
      }
    }
  };

  /** Secret values this document has held (for the page-world script runner's scrub). */
  agent.commands.secret_values = () => {
    const values = new Set(agent.knownValues());
    secretValues(document, values);
    return { values: [...values] };
  };

  /** A function that replaces every secret value the page holds now, and secret-shaped text, in a string. */
  agent.scrubber = () => {
    const values = new Set();
    secretValues(document, values);
    const longestFirst = [...values].sort((a, b) => b.length - a.length);
    return (text) => {
      if (typeof text !== 'string' || !text) return text;
      let out = text;
      for (const secret of longestFirst) if (out.includes(secret)) out = out.split(secret).join(agent.REDACTED);
      return agent.maskPatterns(out);
    };
  };

  /** Replace every known secret value on the page, and secret-shaped text, that occurs in `text`. */
  agent.scrubText = (text) => (typeof text !== 'string' || !text ? text : agent.scrubber()(text));

  /** Free-form texts from elsewhere (the page's console errors), scrubbed here before they leave. */
  agent.commands.scrub = ({ texts }) => {
    const scrub = agent.scrubber();
    return { texts: Array.isArray(texts) ? texts.map(scrub) : [] };
  };
})();
