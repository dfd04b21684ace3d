// The highlight action on an element (a ref or a selector); the work happens in the page agent.
import { act } from '../lib/act.js';

export const name = 'highlight';
export const needsPilot = true;

export function run(msg, { signal }) {
  return act(msg, 'highlight', { signal });
}
