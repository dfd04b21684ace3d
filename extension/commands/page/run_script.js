// Injected into the page's MAIN world by chrome.scripting.executeScript: it must be self-contained
// (no imports, no outer variables) because only its source text travels to the page.

/**
 * Run `script` as an expression, or as a function body if it is not one; await a promise; answer
 * the JSON text {"success":true,"result":...} or {"success":false,"error":...,"stack":...}, or
 * {too_large: n} when the result's JSON text has more than `maxChars` characters.
 */
export async function runInPage(script, maxChars) {
  const failure = (err) => {
    const isError = err instanceof Error || (err && typeof err.message === 'string');
    const error = isError ? `${err.name || 'Error'}: ${err.message}` : `Uncaught ${String(err)}`;
    const stack = isError && typeof err.stack === 'string' ? err.stack : '';
    return JSON.stringify({ success: false, error, stack });
  };
  const AsyncFunction = (async () => {}).constructor;
  let fn;
  try {
    // The newline lets a trailing // comment end before the parenthesis.
    fn = new AsyncFunction(`return (${script.replace(/[\s;]+$/, '')}\n)`);
  } catch (err) {
    if (!(err instanceof SyntaxError)) return failure(err); // e.g. EvalError under a strict CSP
    try {
      fn = new AsyncFunction(script);
    } catch (err2) {
      return failure(err2);
    }
  }
  let value;
  try {
    value = await fn.call(globalThis);
  } catch (err) {
    return failure(err);
  }

  const describeNode = (node) => {
    if (node.nodeType === 1) {
      const id = node.id ? `#${node.id}` : '';
      const cls = typeof node.className === 'string' && node.className.trim()
        ? `.${node.className.trim().split(/\s+/).slice(0, 3).join('.')}` : '';
      return `[element <${node.localName}${id}${cls}>]`;
    }
    if (node.nodeType === 3) return `[text ${JSON.stringify(node.data.slice(0, 80))}]`;
    if (node.nodeType === 9) return `[document ${node.URL}]`;
    return `[node ${node.nodeName}]`;
  };
  const special = (v) => {
    if (typeof v.nodeType === 'number' && typeof v.nodeName === 'string') return describeNode(v);
    if (v === v.window) return '[window]';
    if (v instanceof NodeList || v instanceof HTMLCollection) return Array.from(v);
    if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack || '' };
    if (v instanceof Map) return { '[Map]': Array.from(v.entries()) };
    if (v instanceof Set) return { '[Set]': Array.from(v.values()) };
    if (v instanceof RegExp) return String(v);
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v, (x) => (typeof x === 'bigint' ? String(x) : x));
    if (v instanceof ArrayBuffer) return `[ArrayBuffer ${v.byteLength} bytes]`;
    if (v instanceof Promise) return '[Promise]';
    if (v instanceof WeakMap || v instanceof WeakSet) return `[${v.constructor.name}]`;
    return v;
  };
  // Ancestors of the value being written: a reference back to one of them is a cycle.
  const stack = [];
  function replacer(key, v) {
    switch (typeof v) {
      case 'undefined': return null;
      case 'bigint': return v.toString();
      case 'function': return `[function ${v.name || 'anonymous'}]`;
      case 'symbol': return v.toString();
      case 'object': break;
      default: return v;
    }
    if (v === null) return null;
    const at = stack.lastIndexOf(this);
    if (at !== -1) stack.length = at + 1;
    if (stack.includes(v)) return '[circular]';
    let out;
    try {
      out = special(v);
    } catch {
      return '[inaccessible object]'; // e.g. a cross-origin window
    }
    if (out !== null && typeof out === 'object') {
      if (out !== v) stack.push(v);
      stack.push(out);
    }
    return out;
  }
  try {
    const text = JSON.stringify(value, replacer);
    if (text !== undefined && text.length > maxChars) return { too_large: text.length };
    return `{"success":true,"result":${text === undefined ? 'null' : text}}`;
  } catch (err) {
    return failure(new Error(`the result could not be serialized: ${err && err.message}`));
  }
}
