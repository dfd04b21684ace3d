// Runs in the page's own world from document_start (worker/lib/guard.js), before any page script: it
// tells the redaction part of the page agent (page/redact.js, in the extension's isolated world) of
// each shadow root the moment a page script attaches one, so that what a script changes inside it
// (a password shown as text, a marker removed) is seen as it is done, as in the document itself. A
// MutationObserver on the document does not reach into shadow roots, and the isolated world cannot
// wrap the page's functions itself.
// The news travels as an event on the document whose relatedTarget is the host (an element reaches
// another world, a property of the event would not). redact.js listens first (on window, capturing,
// from document_start), so no page listener can stop it first. Only what this file keeps from the
// start is used (the page may replace dispatchEvent or MouseEvent later); the event itself tells the
// page nothing it did not do.
(() => {
  if (globalThis.__tabpilotShadowHook) return;
  Object.defineProperty(globalThis, '__tabpilotShadowHook', { value: true });
  const { apply } = Reflect;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Mouse = MouseEvent;
  const hostOf = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, 'host').get;
  // The host's own document: a page may call this frame's functions on another frame's element.
  const ownerOf = Object.getOwnPropertyDescriptor(Node.prototype, 'ownerDocument').get;
  const viewOf = Object.getOwnPropertyDescriptor(Document.prototype, 'defaultView').get;
  const own = document;
  const NEWS = 'tabpilot-shadow-root';

  const tell = (node) => {
    try {
      // A document with no window (one made with createHTMLDocument, a template's content, a parsed
      // one) has no page agent to hear it, and its nodes may be adopted here: this frame's agent hears.
      const doc = apply(ownerOf, node, []);
      apply(dispatch, apply(viewOf, doc, []) ? doc : own, [new Mouse(NEWS, { relatedTarget: node })]);
    } catch {
      // nothing to tell from here: the roots are found when their hosts are added
    }
  };

  /** Replace `owner[name]` with a function that calls it, then tells of the host `hostFrom` names. */
  const wrap = (owner, name, hostFrom) => {
    const d = owner && Object.getOwnPropertyDescriptor(owner, name);
    if (!d || typeof d.value !== 'function') return;
    const original = d.value;
    const wrapped = {
      [name](...args) {
        const out = apply(original, this, args);
        tell(hostFrom(this, out));
        return out;
      },
    }[name];
    Object.defineProperty(owner, name, { ...d, value: wrapped });
  };

  wrap(Element.prototype, 'attachShadow', (el) => el);
  // Markup set with declarative shadow roots in it (`<template shadowrootmode>`) attaches them too.
  wrap(Element.prototype, 'setHTMLUnsafe', (el) => el);
  wrap(ShadowRoot.prototype, 'setHTMLUnsafe', (root) => apply(hostOf, root, []));
  // A document parsed with declarative roots in it: the agent looks through all of it.
  const rootOf = Object.getOwnPropertyDescriptor(Document.prototype, 'documentElement').get;
  wrap(Document, 'parseHTMLUnsafe', (_, doc) => apply(rootOf, doc, []));
})();
