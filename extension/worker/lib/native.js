// The native messaging port to the TabPilot host: hello/welcome, reconnection with backoff, and
// reassembly of host messages that arrive in chunks. The port object lives in this module because it
// dies with the worker anyway; everything the popup needs to know is written to chrome.storage.session.
import { noteWorkflow } from './activity.js';
import { HOST_NAME, PROTOCOL_VERSION } from '../protocol.js';
import { identity } from './identity.js';
import { getPilot, setConnection } from './state.js';

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 30_000;

let port = null;
let welcomed = false;
let helloPilot = null;
let retryDelay = RETRY_MIN_MS;
let retryTimer = null;
let handleCommand = () => {};
let handleClosed = () => {};
const incoming = new Map(); // chunk id -> { next, parts: Uint8Array[] }

/**
 * Set the function that receives every command from the host (whole, after reassembly) with a
 * `reply` function bound to the port it came on: an answer never reaches a later host, whose
 * command ids start again at 1.
 */
export function onCommand(fn) {
  handleCommand = fn;
}

/** Set the function called when the port closes (commands in flight can no longer be answered). */
export function onClosed(fn) {
  handleClosed = fn;
}

export function isConnected() {
  return port !== null && welcomed;
}

/** Open the port unless one is open; failures are retried with backoff from onDisconnect. */
export function connect() {
  if (port) return;
  clearTimeout(retryTimer);
  retryTimer = null;
  let p;
  try {
    p = chrome.runtime.connectNative(HOST_NAME);
  } catch (err) {
    recordDisconnect(String(err && err.message ? err.message : err));
    return;
  }
  port = p;
  welcomed = false;
  p.onMessage.addListener((msg) => onPortMessage(p, msg));
  p.onDisconnect.addListener(() => {
    const reason = (chrome.runtime.lastError && chrome.runtime.lastError.message) || 'the host closed the connection';
    if (port !== p) return;
    port = null;
    welcomed = false;
    incoming.clear();
    recordDisconnect(reason);
    handleClosed();
  });
  setConnection({ state: 'connecting' });
  sendHello(p).catch((err) => console.error('TabPilot: no hello sent:', err));
}

async function sendHello(p) {
  // identity() first: it applies a launch config, which may switch the pilot on; a pilot flag read
  // in parallel could predate that, and the host would refuse the launcher's first command.
  const who = await identity();
  const pilot = await getPilot();
  if (port !== p) return;
  helloPilot = pilot;
  post(p, { type: 'hello', protocol: PROTOCOL_VERSION, ...who, pilot });
}

function recordDisconnect(reason) {
  setConnection({ state: 'disconnected', error: reason, retry_ms: retryDelay });
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
}

/** Connect unless a port is open or a retry is already scheduled (the watchdog's call: it must not
 * undo the backoff of a host that keeps failing). */
export function revive() {
  if (!port && retryTimer === null) connect();
}

/** Send a message to the host if connected; false when there is no port (the host is gone). */
export function send(msg) {
  return port ? post(port, msg) : false;
}

function post(p, msg) {
  try {
    p.postMessage(msg);
    return true;
  } catch (err) {
    console.warn('TabPilot: could not send to the host:', err);
    return false;
  }
}

/** Tell the host the pilot toggle changed (before the welcome, the hello carries the state). */
export function sendPilotEvent(enabled) {
  if (!isConnected()) return;
  helloPilot = enabled;
  send({ type: 'event', name: 'pilot', data: { enabled } });
}

async function onWelcome(p, msg) {
  welcomed = true;
  retryDelay = RETRY_MIN_MS;
  await setConnection({
    state: msg.accepted === false ? 'rejected' : 'connected',
    host_version: String(msg.host_version || ''),
    protocol: msg.protocol,
    message: String(msg.message || ''),
  });
  // The toggle may have changed between reading it for the hello and the welcome.
  const pilot = await getPilot();
  if (port === p && pilot !== helloPilot) sendPilotEvent(pilot);
}

function onPortMessage(p, msg) {
  if (!msg || typeof msg !== 'object') return;
  if (msg.type === 'welcome') {
    onWelcome(p, msg);
  } else if (msg.type === 'chunk') {
    const whole = addChunk(msg);
    if (whole !== null) onPortMessage(p, whole);
  } else if (msg.type === 'event') {
    if (msg.name === 'workflow') noteWorkflow(msg.data);
  } else {
    handleCommand(msg, (reply) => port === p && post(p, reply));
  }
}

/** Bytes of base64 text. A plain loop: Uint8Array.from with a mapping function is ~20x slower. */
function fromBase64(data) {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Join base64 pieces of one host message; the message once the final piece is in, else null. */
function addChunk(msg) {
  const { id, seq, data, final } = msg;
  const entry = incoming.get(id) || { next: 0, parts: [] };
  if (seq !== entry.next || typeof data !== 'string') {
    incoming.delete(id);
    console.warn(`TabPilot: dropped host message ${id}: piece ${seq} arrived, expected ${entry.next}`);
    return null;
  }
  entry.parts.push(fromBase64(data));
  entry.next += 1;
  if (!final) {
    incoming.set(id, entry);
    return null;
  }
  incoming.delete(id);
  const total = entry.parts.reduce((n, part) => n + part.length, 0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of entry.parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    console.warn(`TabPilot: host message ${id} is not JSON:`, err);
    return null;
  }
}
