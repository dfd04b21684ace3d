// Element refs (`@e5`) for the page agent. A ref names one element of this document for as long as
// it stays connected: the same element keeps its ref across snapshots, and the maps hold elements
// weakly so a ref never keeps a removed node alive. A new document starts a new agent, so refs from
// an earlier page are unknown here and answer stale_ref.
(() => {
  const agent = globalThis.__tabpilotAgent.use('refs', {
    needs: ['PageError'],
    provides: ['refOf', 'pruneRefs', 'resolveRef'],
  });
  if (agent.refOf) return;

  const byRef = new Map(); // '@e5' -> WeakRef(element)
  const byElement = new WeakMap(); // element -> '@e5'
  let next = 1;

  const stale = (ref, why) =>
    new agent.PageError('stale_ref', `${ref} ${why}: take a new snapshot (observe what=page) and use its refs`, { ref });

  /** The ref of `el`, giving it a new one the first time it is seen. */
  agent.refOf = (el) => {
    let ref = byElement.get(el);
    if (ref === undefined) {
      ref = `@e${next++}`;
      byElement.set(el, ref);
      byRef.set(ref, new WeakRef(el));
    }
    return ref;
  };

  /** Forget refs whose elements were collected, so a long-lived page does not grow the map forever. */
  agent.pruneRefs = () => {
    if (byRef.size < 2_000) return;
    for (const [ref, weak] of byRef) if (!weak.deref()) byRef.delete(ref);
  };

  agent.resolveRef = (ref) => {
    const text = String(ref).trim();
    const normal = text.startsWith('@') ? text : `@${text}`;
    if (!/^@e\d+$/.test(normal)) {
      throw new agent.PageError('invalid_params', `${JSON.stringify(ref)} is not a ref; refs look like @e5`, { ref });
    }
    const weak = byRef.get(normal);
    if (!weak) throw stale(normal, 'is not known on this page (it was reloaded or navigated since)');
    const el = weak.deref();
    if (!el || !el.isConnected) throw stale(normal, 'is gone: its element was removed from the page');
    return el;
  };
})();
