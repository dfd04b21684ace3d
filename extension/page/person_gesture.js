// A click the browser reports as the person's (`isTrusted`: no script makes one, the agent's clicks
// and scripts included) on a link, told to the worker with the link's address as it was when the
// click began: with "only these sites", the person's own way out of a piloted tab (worker/lib/person.js).
// Part of the guard, from document_start in every frame: listening first on the window, capturing,
// so no page listener runs before it or changes the link first.
// Only a link as the page made it counts: one whose address a script changed after it came into the
// document (its href, in place or while taken out, or the document's base moved to another site) may
// carry the click somewhere the person never chose, so it is not told, and its load stays stopped.
(() => {
  const agent = globalThis.__tabpilotAgent.use('person_gesture', { needs: ['onShadowRoot'], provides: ['personGesture'] });
  if (agent.personGesture) return;
  agent.personGesture = true;
  if (!globalThis.chrome?.runtime?.sendMessage || !globalThis.addEventListener) return;

  // Each link's href before the first change seen (a link given its first href keeps that one as its own).
  const firstHref = new WeakMap();
  let baseMoved = false;
  const keep = (link, href) => {
    if (href !== null && !firstHref.has(link)) firstHref.set(link, href);
  };
  // A link taken out is no longer watched: a script could change it and put it back unseen, so its href
  // as it left is kept (a link put back as it was is still its own).
  const leaving = (node) => {
    if (node.nodeType !== 1) return;
    if (node.localName === 'a' || node.localName === 'area') keep(node, node.getAttribute('href'));
    if (node.firstElementChild) for (const link of node.querySelectorAll('a[href], area[href]')) keep(link, link.getAttribute('href'));
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'childList') r.removedNodes.forEach(leaving);
      else if (r.target.localName === 'base') baseMoved = true;
      else keep(r.target, r.oldValue);
    }
  });
  // Namespaced attributes (SVG's xlink:href) pass no attributeFilter: such links are not told at all.
  const WATCH = { subtree: true, childList: true, attributes: true, attributeOldValue: true, attributeFilter: ['href'] };
  observer.observe(document, WATCH);
  agent.onShadowRoot((root) => observer.observe(root, WATCH));
  // The base the page was parsed with; a <base> a script adds later shows as a different one.
  let parsedBase = null;
  const keepBase = () => {
    parsedBase ??= document.baseURI;
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', keepBase, { once: true });
  else keepBase();

  const resolve = (href, base) => {
    try {
      return new URL(href.trim(), base);
    } catch {
      return null;
    }
  };

  /** Whether a script changed where link `n` (its href `href`) leads since the link came into the document. */
  const rewritten = (n, href) => {
    const now = resolve(href, n.baseURI);
    if (firstHref.has(n) && resolve(firstHref.get(n), n.baseURI)?.href !== now?.href) return true;
    if (baseMoved || (parsedBase && parsedBase !== document.baseURI)) {
      return !parsedBase || resolve(href, parsedBase)?.origin !== now?.origin;
    }
    return false;
  };

  /** The address the link the click landed on leads to, or null (no link, or one a script rewrote). */
  const targetOf = (e) => {
    for (const n of e.composedPath()) {
      if (n.nodeType !== 1) continue;
      if (n.localName === 'a' || n.localName === 'area') {
        const href = n.getAttribute('href');
        if (href === null) {
          if (n.hasAttribute('xlink:href')) return null;
          continue;
        }
        if (rewritten(n, href)) return null;
        return resolve(href, n.baseURI)?.href ?? null;
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
