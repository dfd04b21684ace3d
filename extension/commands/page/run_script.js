// Injected into the page's MAIN world by chrome.scripting.executeScript: it must be self-contained
// (no imports, no outer variables) because only its source text travels to the page. Under a CSP that
// forbids eval it travels instead inside a Runtime.evaluate expression with the agent's code already
// compiled into `given`.

/**
 * Run `script` as an expression, or as a function body if it is not one (or call `given`, the agent's
 * code as a function); await a promise; answer the JSON text {"success":true,"result":...} (with
 * "capped":true when an array was cut to `maxItems`) or {"success":false,"error":...,"stack":...};
 * {too_large: n} when the result's JSON text has more than `maxChars` characters; {csp: message} when
 * the page's Content-Security-Policy forbids compiling the script here.
 */
export async function runInPage(script, maxChars, given = null, maxItems = 10_000) {
  const failure = (err) => {
    const isError = err instanceof Error || (err && typeof err.message === 'string');
    const error = isError ? `${err.name || 'Error'}: ${err.message}` : `Uncaught ${String(err)}`;
    const stack = isError && typeof err.stack === 'string' ? err.stack : '';
    return JSON.stringify({ success: false, error, stack });
  };
  const AsyncFunction = (async () => {}).constructor;
  let fn = given;
  if (!fn) {
    try {
      // The newline lets a trailing // comment end before the parenthesis.
      fn = new AsyncFunction(`return (${script.replace(/[\s;]+$/, '')}\n)`);
    } catch (err) {
      if (err instanceof EvalError) return { csp: String(err.message).split('\n')[0] };
      if (!(err instanceof SyntaxError)) return failure(err);
      try {
        fn = new AsyncFunction(script);
      } catch (err2) {
        return failure(err2);
      }
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
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      // Only the items that will be shown are copied: a typed array may hold hundreds of millions.
      const head = Array.from(v.length > maxItems ? v.subarray(0, maxItems) : v, (x) => (typeof x === 'bigint' ? String(x) : x));
      if (v.length > maxItems) {
        capped = true;
        head.push(`[${v.length - maxItems} more items not shown: ${v.length} in all]`);
      }
      return head;
    }
    if (v instanceof ArrayBuffer) return `[ArrayBuffer ${v.byteLength} bytes]`;
    if (v instanceof Promise) return '[Promise]';
    if (v instanceof WeakMap || v instanceof WeakSet) return `[${v.constructor.name}]`;
    return v;
  };
  // Ancestors of the value being written: a reference back to one of them is a cycle.
  const stack = [];
  let capped = false;
  const cap = (v) => {
    if (!Array.isArray(v) || v.length <= maxItems) return v;
    capped = true;
    return [...v.slice(0, maxItems), `[${v.length - maxItems} more items not shown: ${v.length} in all]`];
  };
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
      if (!ArrayBuffer.isView(v)) out = cap(out); // typed arrays were cut while copied
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
    return `{"success":true,"result":${text === undefined ? 'null' : text}${capped ? ',"capped":true' : ''}}`;
  } catch (err) {
    return failure(new Error(`the result could not be serialized: ${err && err.message}`));
  }
}
