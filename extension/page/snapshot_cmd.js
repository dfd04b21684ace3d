// The snapshot command: the rendered lines (page/snapshot.js) cut to a size budget with a
// continuation cursor, or, in diff mode, only the lines added and removed since this document's
// previous snapshot of the same scope.
(() => {
  const agent = globalThis.__tabpilotAgent.use('snapshot_cmd', {
    needs: ['renderLines'],
    provides: ['diffLines', 'window', 'commands.snapshot'],
  });
  if (agent.commands.snapshot) return;

  const previous = new Map(); // scope ('' for the page) -> lines of the last snapshot taken at cursor 0
  // The walk gets this share of the time limit: injecting, masking and carrying the answer back
  // take the rest, which on a loaded machine is most of it.
  const WALK_SHARE = 0.3;
  // Characters walked at least, whatever the window: a diff needs the whole of a normal page.
  const DIFF_BASIS = 50_000;

  /** Lines of `now` not in `before` as "+ line", lines of `before` gone from `now` as "- line". */
  agent.diffLines = (before, now) => {
    const left = new Map();
    for (const l of before) left.set(l, (left.get(l) || 0) + 1);
    const added = [];
    for (const l of now) {
      const n = left.get(l) || 0;
      if (n > 0) left.set(l, n - 1);
      else added.push(l);
    }
    const removed = [];
    for (const l of before) {
      const n = left.get(l) || 0;
      if (n > 0) {
        removed.push(l);
        left.set(l, n - 1);
      }
    }
    return { added, removed };
  };

  /** `text` from `cursor`, at most `max` characters, cut after a whole line when one fits. */
  agent.window = (text, cursor, max) => {
    if (cursor >= text.length) return { text: '', next: null };
    if (text.length - cursor <= max) return { text: text.slice(cursor), next: null };
    let end = text.lastIndexOf('\n', cursor + max);
    if (end <= cursor) end = cursor + max; // one line longer than the whole budget
    const part = text.slice(cursor, end);
    const next = text[end] === '\n' ? end + 1 : end;
    return { text: part, next };
  };

  agent.commands.snapshot = (args) => {
    const max = Number.isInteger(args.max_chars) && args.max_chars > 0 ? args.max_chars : 6000;
    const cursor = Number.isInteger(args.cursor) && args.cursor > 0 ? args.cursor : 0;
    const key = args.scope || '';
    const timeoutMs = Number.isInteger(args.timeout_ms) && args.timeout_ms > 0 ? args.timeout_ms : 5000;
    const budget = { chars: Math.max(cursor + max + 2, DIFF_BASIS), deadline: performance.now() + timeoutMs * WALK_SHARE };
    const lines = agent.renderLines(args.scope, budget, args.mode === 'main');
    const before = previous.get(key);
    // A walk the budget cut short is no basis for a diff (its missing end would read as removed).
    if (cursor === 0 && budget.cut) previous.delete(key);
    else if (cursor === 0) previous.set(key, lines);
    let mode = args.mode === 'main' ? 'main' : 'full';
    let full;
    const out = {};
    if (args.mode === 'diff' && before && !budget.cut) {
      mode = 'diff';
      const { added, removed } = agent.diffLines(before, lines);
      full = [...removed.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)].join('\n');
      out.added = added.length;
      out.removed = removed.length;
    } else {
      full = lines.join('\n');
    }
    const part = agent.window(full, cursor, max);
    if (budget.cut === 'time') {
      // The page goes on past what was walked: a later cursor walks further only if this one moved.
      if (part.next === null && part.text) part.next = cursor + part.text.length + 1;
      out.note = `the page is too large to read whole within ${timeoutMs} ms: this snapshot stops early; narrow it with `
        + 'scope (a CSS selector)';
    }
    const refs = new Set(part.text.match(/(?<!\\)@e\d+/g) || []); // \@e5 is page text, not a ref
    return {
      text: part.text,
      cursor_next: part.next,
      truncated: part.next !== null || budget.cut !== null,
      refs: refs.size,
      mode,
      ...out,
      url: location.href,
      title: document.title,
    };
  };
})();
