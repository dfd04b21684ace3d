// A static guard for regular expressions the page runs on JavaScript's backtracking engine (the
// agent's secret patterns): nesting a repeat inside another unbounded repeat, or repeating an
// alternation, can take exponential time on a near-miss (`(a+)+$` on 31 "a"s and a "!").
const MAX_NESTED = 1000; // the most repeats of repeats a bounded nesting may multiply to

/**
 * Whether `source` nests repeats in a way a backtracking engine can take exponential time on: a
 * quantified group holding a quantifier or an alternation, unless both are bounded and small.
 */
export function backtracks(source) {
  const stack = [{ inner: 1, alt: false }]; // per open group: its largest inner repeat count, any `|`
  let last = null; // the atom just closed: {inner, alt} of a group, or null for a plain atom
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i += 1;
      last = null;
      continue;
    }
    if (c === '[') {
      for (i += 1; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i += 1;
      last = null;
      continue;
    }
    if (c === '(') {
      stack.push({ inner: 1, alt: false });
      last = null;
      continue;
    }
    if (c === ')') {
      last = stack.length > 1 ? stack.pop() : null;
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1].alt = true;
      last = null;
      continue;
    }
    let max = null;
    if (c === '*' || c === '+') max = Infinity;
    else if (c === '?') max = 1;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (m) {
        max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
        i += m[0].length - 1;
      }
    }
    if (max === null) {
      last = null;
      continue;
    }
    if (source[i + 1] === '?' || source[i + 1] === '+') i += 1; // lazy: the same search space
    const top = stack[stack.length - 1];
    if (last && max > 1 && (last.alt || (last.inner > 1 && (max === Infinity || last.inner === Infinity || max * last.inner > MAX_NESTED)))) {
      return true;
    }
    top.inner = Math.max(top.inner, max * (last ? last.inner : 1));
    last = null;
  }
  return false;
}

