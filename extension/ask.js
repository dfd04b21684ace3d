// The page where the person types a secret a run needs (a replay's password): the value goes to the
// service worker, which hands it to the host for this run only; the agent never sees it.
const askId = location.hash.slice(1);
const $ = (id) => document.getElementById(id);

function send(msg) {
  return chrome.runtime.sendMessage({ ...msg, ask_id: askId });
}

async function show() {
  const info = await send({ type: 'ask_info' });
  if (!info || !info.ok) {
    $('why').textContent = 'This request is no longer open. You can close this tab.';
    return;
  }
  const names = info.names.join(', ');
  const what = info.workflow ? ` to run ${info.workflow}` : '';
  const where = info.site ? ` on ${info.site}` : '';
  $('title').textContent = `TabPilot needs ${names}`;
  $('why').textContent = `Your AI agent asked TabPilot${what}${where}; the run needs ${names}, which TabPilot never stores. Type it here.`;
  const fields = $('fields');
  for (const name of info.names) {
    const label = document.createElement('label');
    label.textContent = name;
    const input = document.createElement('input');
    input.type = 'password';
    input.name = name;
    input.required = true;
    input.autocomplete = 'off';
    label.append(input);
    fields.append(label);
  }
  $('ask').hidden = false;
  fields.querySelector('input')?.focus();
}

$('ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  const values = {};
  for (const input of $('fields').querySelectorAll('input')) values[input.name] = input.value;
  const out = await send({ type: 'ask_answer', values });
  $('status').textContent = out && out.ok ? 'TabPilot has it. This tab closes now.' : (out && out.error) || 'Not sent.';
});

$('cancel').addEventListener('click', () => window.close());

show().catch((err) => {
  $('why').textContent = `TabPilot cannot show this request: ${err}`;
});
