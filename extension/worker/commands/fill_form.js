// Several fields of a form in one call (page/form.js): selects, checkboxes and text fields alike.
import { act } from '../lib/act.js';

export const name = 'fill_form';
export const needsPilot = true;

export function run(msg, { signal }) {
  return act(msg, 'fill_form', { signal });
}
