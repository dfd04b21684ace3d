// Close the background tabs extract_tab kept for a run's `follow` (its pool): the end of the run, a
// failure or a cancel. Only the pool's own tabs are touched.
import { ERR } from '../protocol.js';
import { release } from '../lib/bgtabs.js';
import { CommandError } from '../lib/errors.js';

export const name = 'release_tabs';
export const needsPilot = true; // with the pilot off nothing acts: switching it off closed them already

export async function run(msg) {
  if (typeof msg.pool !== 'string' || !msg.pool) throw new CommandError(ERR.INVALID_PARAMS, 'pool must be a non-empty string');
  return { closed: await release(msg.pool) };
}
