// The type action: append text at an element (or the focused one); the work happens in the page agent.
import { act } from '../lib/act.js';

export const name = 'type';
export const needsPilot = true;

export function run(msg, { signal }) {
  return act(msg, 'type', { signal });
}
