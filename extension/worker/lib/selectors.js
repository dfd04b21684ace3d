// A strict check of one CSS selector list, for lists that are later joined into one selector
// (redaction). The worker has no DOM to parse CSS with, so this refuses what could change the
// meaning of its neighbours once joined: a comment (`b/*` hides every selector after it), an open
// bracket, paren or string, a trailing escape, braces or semicolons (not a selector), empty members,
// and, outside strings, any character no selector has (`<<<`, `@`, `!`: a typo the agent would
// otherwise believe hides something). A selector that passes may still be unknown to the page's
// engine (an unknown pseudo-class); the page skips those alone.

const MAX_LENGTH = 500;
const CLOSE = { '[': ']', '(': ')' };
// Outside strings a selector is made of names (letters, digits, -, _, escapes, non-ASCII), # . [ ] ( )
// attribute operators = ~ | ^ $ *, pseudo-class colons, combinators > + ~, commas and spaces.
const SELECTOR_CHAR = /[\w\-#.[\]()=~|^$*:>+,\s\u0080-\uffff]/;

/** Why `selector` cannot be used, or null when it can. */
export function selectorProblem(selector) {
  if (typeof selector !== 'string') return 'not a string';
  const s = selector.trim();
  if (!s) return 'empty';
  if (s.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  const open = [];
  let quote = null;
  let member = false; // something since the last top-level comma
  for (let i = 0; i < s.length; i += 1) {
    const c = s[i];
    if (c === '\\') {
      if (i + 1 >= s.length) return 'ends with an escape (\\)';
      i += 1;
      member = true;
      continue;
    }
    if (/[\u0000-\u001f\u007f]/.test(c)) return 'contains a control character';
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === '/' && s[i + 1] === '*') return 'contains a comment (/*)';
    if (c === '*' && s[i + 1] === '/') return 'contains a comment end (*/)';
    if (c === '{' || c === '}' || c === ';') return `contains ${c}, which no selector has`;
    if (c === '"' || c === "'") quote = c;
    else if (!SELECTOR_CHAR.test(c)) return `contains ${c}, which no selector has`;
    else if (c in CLOSE) open.push(CLOSE[c]);
    else if (c === ']' || c === ')') {
      if (open.pop() !== c) return `has an unmatched ${c}`;
    } else if (c === ',' && !open.length) {
      if (!member) return 'has an empty member in its list (,)';
      member = false;
      continue;
    }
    if (!/\s/.test(c)) member = true;
  }
  if (quote) return `has an unclosed string (${quote})`;
  if (open.length) return `has an unclosed ${open[open.length - 1] === ']' ? '[' : '('}`;
  if (!member) return 'has an empty member in its list (,)';
  return null;
}
