// The person's own redaction selectors, decided as of document_start. A content script cannot read the
// extension's storage (closed to content scripts) and a registered script cannot carry data, so the
// list comes from the worker by message, a few milliseconds in: the page's first scripts may have run
// by then. Until it is here, this keeps what they changed: each element's attributes as they were
// before their first change, each node taken out (with where it was) and each text before it was
// rewritten. Once the list is here it is judged on the page as it was as well as on the page as it is:
// an element that matched before a script renamed, emptied, moved or removed it is a secret from then
// on (redact.js), with every value it held, so a copy of one in a plain element is masked too.
// The guard (worker/lib/guard.js) registers this file only while the list holds selectors beyond the
// defaults, which redact.js knows from the start.
(() => {
  const agent = globalThis.__tabpilotAgent.use('redact_early', {
    needs: ['onShadowRoot', 'setRedaction', 'markSecret', 'rememberValue', 'structural'],
    provides: ['earlyRecord'],
  });
  if (agent.earlyRecord !== undefined) return;
  // Injected after the page has loaded (the agent's first command): the list comes with that command.
  if (document.readyState !== 'loading' || !globalThis.chrome?.runtime?.sendMessage) {
    agent.earlyRecord = null;
    return;
  }
  const attrsBefore = new Map(); // element -> Map(attribute -> value before its first change, null: absent)
  const parentBefore = new Map(); // node taken out -> the node it was in
  const textBefore = new Map(); // text node -> its text before its first change
  // No cap: a page that changed more than a cap before the list arrived would pass unjudged. What is
  // kept is one entry per changed attribute and per node taken out, while the list is on its way (the
  // answer waits for the page's scripts to yield, so a busier page keeps more, for no longer).
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') {
        let before = attrsBefore.get(r.target);
        if (!before) attrsBefore.set(r.target, (before = new Map()));
        if (!before.has(r.attributeName)) before.set(r.attributeName, r.oldValue);
      } else if (r.type === 'characterData') {
        if (!textBefore.has(r.target)) textBefore.set(r.target, r.oldValue);
      } else {
        for (const n of r.removedNodes) if (!parentBefore.has(n)) parentBefore.set(n, r.target);
      }
    }
  });
  const WATCH = {
    subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true, characterDataOldValue: true,
  };
  observer.observe(document, WATCH);
  // Inside shadow roots too, each from the moment redact.js learns of it (as a script attaches it).
  let recording = true;
  agent.onShadowRoot((root) => recording && observer.observe(root, WATCH));
  agent.earlyRecord = { attrsBefore, parentBefore, textBefore };

  // Copies are built in a document of their own: one with no scripts, where no page-defined element
  // runs its constructor and nothing the page observes changes.
  const scratch = document.implementation.createHTMLDocument('');
  // Across a shadow root to its host: what is inside a secret element is secret, shadow trees included.
  const up = (p) => (p && p.nodeType === 11 && p.host ? p.host : p);
  const parentOf = (n) => up(n.parentNode || parentBefore.get(n) || null);

  /** Put back, on `copy`, the attributes `el` had before the page first changed them. */
  const restore = (copy, el) => {
    for (const [name, value] of attrsBefore.get(el) || []) {
      if (value === null) copy.removeAttribute(name);
      else copy.setAttribute(name, value);
    }
    return copy;
  };

  /** A copy of `el` alone, as it was. */
  const asItWas = (el) => {
    const copy = scratch.createElementNS(el.namespaceURI, el.localName);
    for (const a of el.attributes) copy.setAttribute(a.name, a.value);
    return restore(copy, el);
  };

  // Texts a script rewrote or took out, by the element they were in (filled as the list is judged).
  const textsIn = new Map();

  /** The values `el` held before the page changed it: attributes (not structural ones) and texts. */
  const rememberChanges = (el) => {
    for (const [name, value] of attrsBefore.get(el) || []) if (value && !agent.structural.has(name)) agent.rememberValue(value);
    for (const text of textsIn.get(el) || []) agent.rememberValue(text);
  };

  const forget = () => {
    recording = false;
    observer.disconnect();
    textsIn.clear();
    attrsBefore.clear();
    parentBefore.clear();
    textBefore.clear();
  };

  const done = new WeakSet();

  /**
   * Judge `root` and everything in it as they were: a copy of the subtree with the attributes put back,
   * inside copies of its ancestors as they were (an ancestor's class decides `.vault b`); anything inside
   * an element that matched held a secret too.
   */
  const judgeSubtree = (root, selector, parent = up(root.parentNode)) => {
    if (done.has(root)) return;
    const copy = scratch.importNode(root, true);
    const origAll = [root, ...root.querySelectorAll('*')];
    const copyAll = [copy, ...copy.querySelectorAll('*')];
    if (origAll.length !== copyAll.length) return;
    for (let i = 0; i < origAll.length; i++) {
      done.add(origAll[i]);
      if (attrsBefore.has(origAll[i])) restore(copyAll[i], origAll[i]);
    }
    let top = copy;
    for (let p = parent; p && p.nodeType === 1; p = parentOf(p)) {
      const outer = asItWas(p);
      outer.append(top);
      top = outer;
    }
    for (let i = 0; i < copyAll.length; i++) {
      const el = origAll[i];
      if (copyAll[i].matches(selector)) agent.markSecret(el);
      if ((attrsBefore.has(el) || textsIn.has(el)) && copyAll[i].closest(selector)) rememberChanges(el);
    }
  };

  const judge = (list) => {
    observer.disconnect();
    const valid = list.filter((s) => {
      try {
        scratch.createDocumentFragment().querySelector(s);
        return true;
      } catch {
        return false;
      }
    });
    if (!valid.length) return forget();
    const selector = valid.join(',');
    const textOf = (el, text) => {
      if (!el || el.nodeType !== 1 || !text || !text.trim()) return;
      if (!textsIn.has(el)) textsIn.set(el, []);
      textsIn.get(el).push(text);
    };
    for (const [node, text] of textBefore) textOf(up(node.parentNode), text);
    for (const [node, was] of parentBefore) if (node.nodeType === 3) textOf(up(was), node.data);
    // Outermost first: a subtree judged whole is not judged again for an element inside it.
    const changed = new Set([...attrsBefore.keys()].filter((el) => el.isConnected));
    const inChanged = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) if (changed.has(p)) return true;
      return false;
    };
    for (const el of changed) if (!inChanged(el)) judgeSubtree(el, selector);
    for (const [node, was] of parentBefore) {
      if (node.nodeType === 1) judgeSubtree(node, selector, up(was)); // where it was, if it moved since
      else if (node.nodeType === 3 && up(was)?.nodeType === 1 && !done.has(up(was))) judgeSubtree(up(was), selector);
    }
    for (const node of textBefore.keys()) {
      const el = up(node.parentNode);
      if (el && el.nodeType === 1) judgeSubtree(el, selector);
    }
    return forget();
  };

  chrome.runtime.sendMessage({ type: 'redaction_list' }).then((answer) => {
    const list = answer && Array.isArray(answer.selectors) ? answer.selectors : null;
    if (!list) return forget();
    agent.setRedaction(list);
    return judge(list);
  }, forget);
})();
