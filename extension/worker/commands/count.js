// How many elements match a selector, and how many of them a person can see.
import { inPage } from '../lib/page.js';

export const name = 'count';
export const needsPilot = true;

export async function run(msg, { signal }) {
  const { count, visible } = await inPage(msg, 'count', { selector: msg.selector }, { signal });
  return { count, visible };
}
