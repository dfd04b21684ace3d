// The snapshot command: the rendered lines (page/snapshot.js) cut to a size budget with a
// continuation cursor, or, in diff mode, only the lines added and removed since this document's
// previous snapshot of the same scope.
(() => {
  const agent = globalThis.__tabpilotAgent;
  if (agent.commands.snapshot) return;

  const previous = new Map(); // scope ('' for the page) -> lines of the last snapshot taken at cursor 0

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
    const lines = agent.renderLines(args.scope);
    const before = previous.get(key);
    if (cursor === 0) previous.set(key, lines);
    let mode = 'full';
    let full;
    const out = {};
    if (args.mode === 'diff' && before) {
      mode = 'diff';
      const { added, removed } = agent.diffLines(before, lines);
      full = [...removed.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)].join('\n');
      out.added = added.length;
      out.removed = removed.length;
    } else {
      full = lines.join('\n');
    }
    const part = agent.window(full, cursor, max);
    const refs = new Set(part.text.match(/(?<!\\)@e\d+/g) || []); // \@e5 is page text, not a ref
    return {
      text: part.text,
      cursor_next: part.next,
      truncated: part.next !== null,
      refs: refs.size,
      mode,
      ...out,
      url: location.href,
      title: document.title,
    };
  };
})();
