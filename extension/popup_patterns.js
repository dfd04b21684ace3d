// The popup's "Secret-shaped text" section: the user's list of patterns (chrome.storage key
// redactPatterns; default REDACT_PATTERNS, generated from host/tabpilot/wire/secret_patterns.py).
// Only this page writes the key; page commands carry the list into the page agent (lib/page.js).
import { REDACT_PATTERNS } from './worker/protocol.js';
import { KEY } from './worker/lib/state.js';

const $ = (id) => document.getElementById(id);

function show(list) {
  const area = $('pattern-list');
  if (document.activeElement === area) return; // do not overwrite what the person is typing
  area.value = (Array.isArray(list) ? list : REDACT_PATTERNS).join('\n');
}

/** Each line a regular expression this browser compiles; an error names the first that is not. */
function parse(text) {
  const list = [...new Set(text.split('\n').map((l) => l.trim()).filter(Boolean))];
  for (const entry of list) {
    try {
      // Patterns match anywhere: no anchors needed, and the page runs them with the g flag.
      new RegExp(entry.startsWith('luhn:') ? entry.slice(5) : entry, 'g'); // eslint-disable-line no-new
    } catch {
      return { error: `not a regular expression: ${entry}` };
    }
  }
  return { list };
}

$('pattern-save').addEventListener('click', async () => {
  const parsed = parse($('pattern-list').value);
  if (parsed.error) {
    $('pattern-status').textContent = parsed.error;
    return;
  }
  await chrome.storage.local.set({ [KEY.REDACT_PATTERNS]: parsed.list });
  $('pattern-status').textContent = `saved (${parsed.list.length})`;
});

$('pattern-reset').addEventListener('click', async () => {
  await chrome.storage.local.remove(KEY.REDACT_PATTERNS);
  $('pattern-list').value = REDACT_PATTERNS.join('\n');
  $('pattern-status').textContent = 'defaults restored';
});

chrome.storage.local.get(KEY.REDACT_PATTERNS).then((got) => show(got[KEY.REDACT_PATTERNS]));
