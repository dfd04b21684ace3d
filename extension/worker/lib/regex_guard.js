// A static guard for regular expressions the page runs on JavaScript's backtracking engine (the
// agent's secret patterns): nesting a repeat inside another unbounded repeat, or repeating an
// alternation, can take exponential time on a near-miss (`(a+)+$` on 31 "a"s and a "!").
const MAX_WAYS = 100_000; // the most ways a bounded nesting may match one stretch of text (tried per start)

/**
 * Whether `source` nests repeats in a way a backtracking engine can take exponential time on: a
 * quantified group holding a quantifier or an alternation, unless both are bounded and small. A group
 * one pass of which can match w ways (its branches times its inner repeats' ways) repeated at most m
 * times can match w^m ways: the card pattern's separator (four branches, at most three times) 64, its
 * two separated groups of four digits 4,096, `(a{1,50}){1,50}` 50^50.
 */
export function backtracks(source) {
  const stack = [{ inner: 1, branches: 1 }]; // per open group: the most ways an inner repeat matches, its branches
  let last = null; // the atom just closed: {inner, branches} of a group, or null for a plain atom
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
      stack.push({ inner: 1, branches: 1 });
      last = null;
      continue;
    }
    if (c === ')') {
      last = stack.length > 1 ? stack.pop() : null;
      // Matched once, a group's ways are its parent's too: `(?:(a+))+` nests as much as `(a+)+`.
      if (last) stack[stack.length - 1].inner = Math.max(stack[stack.length - 1].inner, last.inner * last.branches);
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1].branches += 1;
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
    if (max === 0) {
      last = null; // repeated never: nothing to try
      continue;
    }
    // The ways one pass of the atom can be matched: its branches times its inner repeats' ways.
    const ways = last ? last.inner * last.branches : 1;
    if (ways > 1 && max > 1 && (max === Infinity || ways === Infinity || ways ** max > MAX_WAYS)) return true;
    top.inner = Math.max(top.inner, ways > 1 ? ways ** max : max);
    last = null;
  }
  return false;
}

