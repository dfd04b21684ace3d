import { ERR } from '../protocol.js';
import { CommandError } from '../lib/errors.js';

export const name = 'cancel';
export const needsPilot = true;

export function run(msg, { running }) {
  if (!Number.isInteger(msg.target)) throw new CommandError(ERR.INVALID_PARAMS, 'target must be a command id');
  const controller = running.get(msg.target);
  if (!controller) return { cancelled: false };
  controller.abort(new CommandError(ERR.CANCELLED, `command ${msg.target} was cancelled`));
  return { cancelled: true };
}
