// Ask the person for secret params on TabPilot's own page in a new tab (open), collect what they
// typed (wait), or close the page (close). See lib/ask.js: the values never touch storage.
import { DEFAULTS, ERR } from '../protocol.js';
import { closeAsk, openAsk, waitAnswer } from '../lib/ask.js';
import { bounded, timeoutParam } from '../lib/deadline.js';
import { CommandError } from '../lib/errors.js';

export const name = 'ask_secret';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const id = typeof msg.ask_id === 'string' ? msg.ask_id : null;
  switch (msg.op) {
    case 'open': {
      const names = Array.isArray(msg.names) ? msg.names.filter((n) => typeof n === 'string' && n) : [];
      if (!names.length) throw new CommandError(ERR.INVALID_PARAMS, 'names must list the params to ask for');
      return openAsk({ names, workflow: String(msg.workflow || ''), site: String(msg.site || '') });
    }
    case 'wait': {
      const timeoutMs = timeoutParam(msg.timeout_ms, DEFAULTS.ask_secret.timeout_ms);
      if (!id || timeoutMs === null) throw new CommandError(ERR.INVALID_PARAMS, 'wait needs an ask_id and a positive timeout_ms');
      const values = await bounded(waitAnswer(id), {
        timeoutMs,
        signal,
        onTimeout: () => new CommandError(ERR.TIMEOUT, `nothing was typed on the TabPilot page within ${timeoutMs} ms`),
      });
      return { ask_id: id, values };
    }
    case 'close':
      if (!id) throw new CommandError(ERR.INVALID_PARAMS, 'close needs an ask_id');
      return { ask_id: id, closed: await closeAsk(id) };
    default:
      throw new CommandError(ERR.INVALID_PARAMS, `op must be open, wait or close, not ${JSON.stringify(msg.op)}`);
  }
}
