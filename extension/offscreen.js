// Keeps a runtime port to the service worker. When the worker is stopped the port drops; connecting
// again starts a fresh worker, which reconnects to the native host from its top-level code.
const PORT_NAME = 'tabpilot-keepalive';
const MAX_DELAY_MS = 30_000;
let delay = 0;

function connect() {
  const startedAt = performance.now();
  const port = chrome.runtime.connect({ name: PORT_NAME });
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError;
    // A worker that keeps failing right after start gets a growing pause; a long-lived one none.
    delay = performance.now() - startedAt > 10_000 ? 0 : Math.min(Math.max(delay * 2, 100), MAX_DELAY_MS);
    if (delay === 0) connect();
    else setTimeout(connect, delay);
  });
}

connect();
