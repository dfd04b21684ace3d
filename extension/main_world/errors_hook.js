// Registered as a MAIN-world content script at document_start while AI Web Pilot is on: it keeps the
// page's console errors, uncaught exceptions and unhandled rejections in a small ring buffer in the
// page, which the telemetry command reads. Nothing leaves the page unless the agent asks for it.
(() => {
  const KEY = '__tabpilotErrors';
  if (window[KEY]) return;
  const MAX_ITEMS = 200;
  const MAX_TEXT = 1000;
  // Sequence numbers grow across documents: a cursor from an earlier page is below all of this one's.
  const base = Math.round(performance.timeOrigin) * 1000;
  const log = { base, next: base + 1, items: [], evicted: 0, lastEvicted: base };
  Object.defineProperty(window, KEY, { value: log, enumerable: false });

  const clip = (s) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);
  const show = (v) => {
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    if (typeof v === 'string') return v;
    try {
      const text = JSON.stringify(v);
      return text === undefined ? String(v) : text;
    } catch {
      return String(v);
    }
  };
  const push = (kind, message, source, stack) => {
    const item = { seq: log.next++, time: Date.now(), kind, message: clip(message), source: clip(source || '') };
    if (stack) item.stack = clip(stack);
    log.items.push(item);
    if (log.items.length > MAX_ITEMS) {
      log.lastEvicted = log.items.shift().seq;
      log.evicted += 1;
    }
  };
  const callerOf = (stack) => {
    const line = (stack || '').split('\n').find((l, i) => i > 0 && !l.includes('errors_hook.js'));
    return line ? line.trim().replace(/^at\s+/, '') : location.href;
  };

  const original = console.error;
  console.error = function (...args) {
    try {
      const err = args.find((a) => a instanceof Error);
      const stack = new Error().stack;
      push('console.error', args.map(show).join(' '), callerOf(stack), err && err.stack);
    } catch {
      // Recording must never break the page's own logging.
    }
    return original.apply(this, args);
  };
  window.addEventListener('error', (e) => {
    if (e.target !== window) return; // a failed <img> or <script> load, not an exception
    const err = e.error;
    push('uncaught', err instanceof Error ? `${err.name}: ${err.message}` : String(e.message), `${e.filename}:${e.lineno}:${e.colno}`, err && err.stack);
  }, true);
  window.addEventListener('unhandledrejection', (e) => {
    const r = e.reason;
    push('unhandledrejection', r instanceof Error ? `${r.name}: ${r.message}` : show(r), location.href, r && r.stack);
  });
})();
