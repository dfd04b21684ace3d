// One error type for every command failure: a stable code from protocol.js plus a message the agent
// or the human can act on.
import { ERR } from '../protocol.js';

export const PILOT_OFF_MESSAGE = "Enable 'AI Web Pilot' in extension popup to use this tool";

export class CommandError extends Error {
  constructor(code, message, { retryable = false, data = null } = {}) {
    super(message);
    this.code = code;
    this.retryable = retryable;
    this.data = data;
  }
}

export function pilotOff() {
  return new CommandError(ERR.AI_WEB_PILOT_DISABLED, PILOT_OFF_MESSAGE);
}

/** Any thrown value as a CommandError; unexpected exceptions become internal_error. */
export function asCommandError(err) {
  if (err instanceof CommandError) return err;
  const message = err && err.message ? err.message : String(err);
  return new CommandError(ERR.INTERNAL_ERROR, message);
}
