// A click the browser reports as the person's (`isTrusted`: no script makes one, the agent's clicks
// and scripts included) on a link, told to the worker with the link's address as it was when the
// click began: with "only these sites", the person's own way out of a piloted tab (worker/lib/person.js).
// Part of the guard, from document_start in every frame: listening first on the window, capturing,
// so no page listener runs before it or changes the link first.
(() => {
  const agent = globalThis.__tabpilotAgent.use('person_gesture', { needs: [], provides: ['personGesture'] });
  if (agent.personGesture) return;
  agent.personGesture = true;
  if (!globalThis.chrome?.runtime?.sendMessage || !globalThis.addEventListener) return;

  /** The address the link (or GET form button) the click landed on leads to, or null. */
  const targetOf = (e) => {
    for (const n of e.composedPath()) {
      if (n.nodeType !== 1) continue;
      if (n.localName === 'a' || n.localName === 'area') {
        const href = n.getAttribute('href') ?? n.getAttribute('xlink:href');
        if (href === null) continue;
        try {
          return new URL(href.trim(), n.baseURI).href;
        } catch {
          return null;
        }
      }
    }
    return null;
  };

  const heard = (e) => {
    if (!e.isTrusted || e.button > 1) return;
    const url = targetOf(e);
    if (url && /^https?:/i.test(url)) chrome.runtime.sendMessage({ type: 'person_clicked', url }).catch(() => {});
  };
  addEventListener('click', heard, true);
  addEventListener('auxclick', heard, true);
})();
