// Running one command from the host: look up its handler, enforce the pilot toggle, answer once.
import { ERR } from './protocol.js';
import { HANDLERS } from './commands/index.js';
import { actingEnded, actingStarted, record } from './lib/activity.js';
import { CommandError, asCommandError, pilotOff } from './lib/errors.js';
import { JsonText, errorMessage, resultMessages } from './lib/reply.js';
import { commandStarted, forgetRefusal, siteOf } from './lib/sites.js';
import { getPilot } from './lib/state.js';

// Commands in flight in this worker, id -> AbortController (they die with the worker and its port).
const running = new Map();

/** Handle one host message; `send` posts a message to the host that sent it. */
export async function dispatch(msg, send) {
  const id = msg.id;
  const handler = typeof msg.type === 'string' ? HANDLERS.get(msg.type) : undefined;
  if (!handler) {
    if (id !== undefined && id !== null) {
      const what = typeof msg.type === 'string' ? `unknown command ${JSON.stringify(msg.type)}` : 'message without a type';
      const code = typeof msg.type === 'string' ? ERR.UNKNOWN_COMMAND : ERR.MALFORMED_MESSAGE;
      send(errorMessage(id, new CommandError(code, `${what}; this extension knows ${[...HANDLERS.keys()].join(', ')}`)));
    }
    return;
  }
  if (!Number.isInteger(id)) {
    send(errorMessage(null, new CommandError(ERR.MALFORMED_MESSAGE, `${msg.type} without an integer id`)));
    return;
  }
  const controller = new AbortController();
  controller.piloted = handler.needsPilot;
  running.set(id, controller);
  const started = Date.now();
  const t0 = performance.now();
  // The worker's own time for the command, on its answer (the last piece of a chunked one): the
  // host's trace tells it from the time spent in the host and on the pipe.
  const timed = (m, last) => {
    if (last) m.ms = Math.round((performance.now() - t0) * 10) / 10;
    return m;
  };
  let acting = false;
  let outcome = 'ok';
  let tab = Number.isInteger(msg.tab_id) ? msg.tab_id : null;
  let site = null;
  let count = null;
  const unguard = handler.needsPilot ? commandStarted(controller) : null;
  try {
    if (handler.needsPilot && !(await getPilot())) throw pilotOff();
    if (handler.needsPilot) {
      acting = true;
      actingStarted();
    }
    const out = await handler.run(msg, { signal: controller.signal, running });
    if (tab === null && out && Number.isInteger(out.tab_id)) tab = out.tab_id;
    if (msg.type === 'extract' && out instanceof JsonText) ({ count, site } = extractFacts(out.text));
    const msgs = resultMessages(id, out);
    msgs.forEach((m, i) => send(timed(m, i === msgs.length - 1)));
  } catch (err) {
    const e = asCommandError(err);
    if (e.code === ERR.INTERNAL_ERROR) console.error(`TabPilot: ${msg.type} ${id} failed:`, err);
    outcome = e.code;
    if (tab === null && e.data && Number.isInteger(e.data.tab_id)) tab = e.data.tab_id;
    if (e.data && typeof e.data.site === 'string') site = e.data.site;
    if (e.data && e.data.stopped_earlier === true) await forgetRefusal(e.data.tab_id).catch(() => {}); // told now
    send(timed(errorMessage(id, e), true));
  } finally {
    unguard?.();
    if (running.get(id) === controller) running.delete(id);
    if (acting) actingEnded();
    // Only what was done and how it ended: never the command's arguments (scripts, filled values).
    if (handler.needsPilot) record({ at: started, tab, site, count, action: msg.type, outcome, ms: Date.now() - started });
  }
}

/**
 * How many rows an extract answered and on which site, for the activity log. Its answer is JSON text
 * the worker does not parse; the page writes `count`, `warnings` and `url` after `rows`: the last
 * `count` key is the top-level one (a row's own come before it, and inside strings quotes are
 * escaped), and the first `url` key after it is too.
 */
function extractFacts(text) {
  const at = text.lastIndexOf('"count":');
  const m = at < 0 ? null : /^"count":(\d+)/.exec(text.slice(at, at + 30));
  const urlAt = at < 0 ? -1 : text.indexOf('"url":', at); // the first key of that name after `count`
  const literal = urlAt < 0 ? null : /^"url":("(?:[^"\\]|\\.)*")/.exec(text.slice(urlAt, urlAt + 8200));
  let site = null;
  try {
    site = literal ? siteOf(JSON.parse(literal[1])) : null;
  } catch {
    // not the shape the page writes: no site in the log
  }
  return { count: m ? Number(m[1]) : null, site };
}

/** Stop every running command that needs the pilot (the user just switched it off). */
export function abortPiloted() {
  for (const controller of running.values()) {
    if (controller.piloted) controller.abort(pilotOff());
  }
}

/** Stop every running command: the host that sent them is gone. */
export function abortAll() {
  const gone = new CommandError(ERR.EXTENSION_DISCONNECTED, 'the native host disconnected');
  for (const controller of running.values()) controller.abort(gone);
}
