// The activity log as a person reads it: "read 31 rows on acme.test", "opened jira.acme.com",
// "clicked on acme.test — refused: site not allowed". Built from what the log keeps (action, site,
// row count, outcome code), never from arguments. Kept free of `chrome` so node can test it.
import { ERR } from '../protocol.js';

// What each command did, as a verb phrase; `on SITE` is added when the site is known.
const DID = {
  navigate: 'opened',
  new_tab: 'opened a new tab',
  close_tab: 'closed a tab',
  switch_tab: 'switched to a tab',
  track_tab: 'followed a tab',
  tabs: 'listed the open tabs',
  history: 'went back, forward or reloaded',
  snapshot: 'read the page',
  main_content: 'read the main text',
  extract: 'read rows',
  count: 'counted elements',
  suggest: 'looked for data to extract',
  paginate: 'went to the next page',
  scroll_load: 'loaded more rows',
  click: 'clicked',
  fill: 'filled in a field',
  type: 'typed',
  press: 'pressed a key',
  select: 'chose an option',
  check: 'ticked a box',
  hover: 'pointed at an element',
  scroll: 'scrolled',
  wait_for: 'waited for the page',
  highlight: 'highlighted an element',
  execute_js: 'ran a script',
  extract_script: 'ran an extractor',
  screenshot: 'took a screenshot',
  state: 'saved or restored a session',
  telemetry: 'read the console and network log',
  add_redaction: 'added a redaction rule',
  cancel: 'cancelled a command',
};

// Outcomes a person can act on, in words; any other code is shown as it is.
const WHY = {
  [ERR.SITE_NOT_ALLOWED]: 'refused: site not allowed',
  [ERR.AI_WEB_PILOT_DISABLED]: 'refused: pilot off',
  [ERR.TIMEOUT]: 'timed out',
  [ERR.CANCELLED]: 'was cancelled',
  [ERR.TAB_NOT_FOUND]: 'no such tab',
  [ERR.TAB_CLOSED]: 'the tab closed',
  [ERR.NAVIGATION_BLOCKED]: 'refused: page off limits',
  [ERR.ELEMENT_NOT_FOUND]: 'element not found',
  [ERR.NOT_INTERACTABLE]: 'element not usable',
};

/** One log entry as `{what, outcome}`: what was done (and where), and '' or why it did not work. */
export function describe(entry) {
  const action = String(entry.action || 'acted');
  let what = DID[action] || action.replace(/_/g, ' ');
  if (action === 'extract' && Number.isInteger(entry.count)) what = `read ${entry.count} row${entry.count === 1 ? '' : 's'}`;
  const site = typeof entry.site === 'string' && entry.site ? entry.site : null;
  if (site) what += action === 'navigate' || action === 'screenshot' ? ` ${action === 'screenshot' ? 'of ' : ''}${site}` : ` on ${site}`;
  const outcome = !entry.outcome || entry.outcome === 'ok' ? '' : WHY[entry.outcome] || `failed: ${entry.outcome}`;
  if (action === 'navigate') what = `${outcome ? 'tried to open' : 'opened'} ${site || 'a page'}`;
  return { what, outcome };
}
