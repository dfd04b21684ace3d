// Runs in the page's own world from document_start (worker/lib/guard.js), before any page script: it
// tells the redaction part of the page agent (page/redact.js, in the extension's isolated world) of
// each shadow root the moment a page script makes one (attachShadow, markup with declarative roots, a
// copy of a host whose root is clonable), so that what a script changes inside it (a password shown
// as text, a marker removed) is seen as it is done, as in the document itself. A MutationObserver on
// the document does not reach into shadow roots, and the isolated world cannot wrap the page's
// functions itself.
// The news travels as an event on the document whose relatedTarget is the host (an element reaches
// another world, a property of the event would not). redact.js listens first (on window, capturing,
// from document_start), so no page listener can stop it first. Only what this file keeps from the
// start is used (the page may replace dispatchEvent or MouseEvent later); the event itself tells the
// page nothing it did not do.
// A frame sandboxed without allow-scripts runs no script in this world, this file included, yet a
// same-origin document above it can call its functions: this file, in the documents above, puts the
// same wrappers into such a frame's world, when redact.js in the frame asks (at its document_start)
// and whenever a script here takes hold of a frame's window or document.
(() => {
  const MARK = '__tabpilotShadowHook';
  const { apply } = Reflect;
  const { defineProperty, getOwnPropertyDescriptor } = Object;
  const hasOwn = Object.prototype.hasOwnProperty;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Mouse = MouseEvent;
  const hostOf = getOwnPropertyDescriptor(ShadowRoot.prototype, 'host').get;
  // The host's own document: a page may call this frame's functions on another frame's element.
  const ownerOf = getOwnPropertyDescriptor(Node.prototype, 'ownerDocument').get;
  const viewOf = getOwnPropertyDescriptor(Document.prototype, 'defaultView').get;
  const rootOf = getOwnPropertyDescriptor(Document.prototype, 'documentElement').get;
  const typeOf = getOwnPropertyDescriptor(Node.prototype, 'nodeType').get;
  const firstOf = getOwnPropertyDescriptor(DocumentFragment.prototype, 'firstElementChild').get;
  const toText = String;
  const { indexOf, slice, toLowerCase: lower } = String.prototype;
  const Weak = WeakMap;
  const { get: getTail, set: setTail } = WeakMap.prototype;
  const NEWS = 'tabpilot-shadow-root';
  const REALM = 'tabpilot-frame-realm';

  /** Put the wrappers into window `win`'s world (once; nothing for another origin's window). */
  const install = (win) => {
    try {
      if (!win || apply(hasOwn, win, [MARK])) return;
      defineProperty(win, MARK, { value: true });
    } catch {
      return; // another origin: its scripts cannot reach this page's secrets, nor ours its functions
    }
    // Read at each telling: a window kept from its first blank document shows a new one later
    // (`document` is unforgeable: no page script can redefine it).
    const own = () => win.document;
    const tell = (node) => {
      if (!node) return;
      try {
        // A document with no window (one made with createHTMLDocument, a template's content, a parsed
        // one) has no page agent to hear it, and its nodes may be adopted here: this frame's agent hears.
        const doc = apply(typeOf, node, []) === 9 ? node : apply(ownerOf, node, []);
        apply(dispatch, apply(viewOf, doc, []) ? doc : own(), [new Mouse(NEWS, { relatedTarget: node })]);
      } catch {
        // nothing to tell from here: the roots are found when their hosts are added
      }
    };

    /** Replace `owner[name]` with a function that calls it, then tells of the host `hostFrom` names. */
    const wrap = (owner, name, hostFrom) => {
      const d = owner && getOwnPropertyDescriptor(owner, name);
      if (!d || typeof d.value !== 'function') return;
      const original = d.value;
      const wrapped = {
        [name](...args) {
          const out = apply(original, this, args);
          tell(hostFrom(this, out));
          return out;
        },
      }[name];
      defineProperty(owner, name, { ...d, value: wrapped });
    };

    wrap(win.Element.prototype, 'attachShadow', (el) => el);
    // Markup set with declarative shadow roots in it (`<template shadowrootmode>`) attaches them too,
    // and so does the Sanitizer API's (setHTML, parseHTML) with a sanitizer that lets them through.
    for (const name of ['setHTMLUnsafe', 'setHTML']) {
      wrap(win.Element.prototype, name, (el) => el);
      wrap(win.ShadowRoot.prototype, name, (root) => apply(hostOf, root, []));
    }
    // A document parsed with declarative roots in it: the agent looks through all of it.
    wrap(win.Document, 'parseHTMLUnsafe', (_, doc) => apply(rootOf, doc, []));
    wrap(win.Document, 'parseHTML', (_, doc) => apply(rootOf, doc, []));
    // A copy of a host whose root is clonable gets a root of its own, made by the copy, not by
    // attachShadow: the copy (an element, a fragment, a document) is told of as it is made when a page
    // script can reach into a root in it. A closed one it cannot (the copy hands out no reference), so
    // what it holds stays as copied until the agent finds it; asking each element for an open root
    // costs a copy a fraction of what telling would (copies are made by the thousand).
    const openOf = getOwnPropertyDescriptor(win.Element.prototype, 'shadowRoot').get;
    const all = win.Element.prototype.querySelectorAll;
    const fragAll = win.DocumentFragment.prototype.querySelectorAll;
    const docAll = win.Document.prototype.querySelectorAll;
    const lengthOf = getOwnPropertyDescriptor(win.NodeList.prototype, 'length').get;
    const copied = (_, out) => {
      const type = out ? apply(typeOf, out, []) : 0;
      if (type !== 1 && type !== 9 && !(type === 11 && apply(firstOf, out, []))) return null;
      if (type === 1 && apply(openOf, out, [])) return out;
      const els = apply(type === 1 ? all : type === 9 ? docAll : fragAll, out, ['*']);
      for (let i = 0, n = apply(lengthOf, els, []); i < n; i++) if (apply(openOf, els[i], [])) return out;
      return null;
    };
    wrap(win.Node.prototype, 'cloneNode', copied);
    wrap(win.Document.prototype, 'importNode', copied);
    wrap(win.Range.prototype, 'cloneContents', copied);
    // Markup written while a page is parsed may declare roots the parser attaches at once, and the
    // writing script may change them before any observer runs. The attribute name may be split over
    // writes (never escaped, never spaced), so the last letters of the previous write count too.
    const MARKER = 'shadowrootmode';
    const tails = new Weak();
    for (const name of ['write', 'writeln']) {
      const d = getOwnPropertyDescriptor(win.Document.prototype, name);
      if (!d || typeof d.value !== 'function') continue;
      const original = d.value;
      const wrapped = {
        [name](...args) {
          // Each argument made a string once, here: a page's toString could answer the check otherwise.
          let text = apply(getTail, tails, [this]) || '';
          for (let i = 0; i < args.length; i++) text += args[i] = toText(args[i]);
          const out = apply(original, this, args);
          if (apply(indexOf, apply(lower, text, []), [MARKER]) >= 0) tell(apply(rootOf, this, []));
          apply(setTail, tails, [this, apply(slice, text, [-(MARKER.length - 1)])]);
          return out;
        },
      }[name];
      defineProperty(win.Document.prototype, name, { ...d, value: wrapped });
    }

    /** Replace getter `owner[name]` with one that calls `after` with what it answers (and its object). */
    const wrapGetter = (owner, name, after) => {
      const d = owner && getOwnPropertyDescriptor(owner, name);
      if (!d || typeof d.get !== 'function') return;
      const get = d.get;
      const wrapped = {
        get [name]() {
          const out = apply(get, this, []);
          if (out) after(out, this);
          return out;
        },
      };
      defineProperty(owner, name, { ...d, get: getOwnPropertyDescriptor(wrapped, name).get });
    };
    // A custom element reaches its copied root, closed or not, through its internals.
    wrapGetter(win.ElementInternals?.prototype, 'shadowRoot', (root) => tell(apply(hostOf, root, [])));
    // A frame's window or document taken hold of from here: its world gets the wrappers first.
    // Another origin's window is left alone before it is touched (touching it throws, and is logged).
    for (const Frame of [win.HTMLIFrameElement, win.HTMLFrameElement, win.HTMLObjectElement]) {
      const docOf = Frame && getOwnPropertyDescriptor(Frame.prototype, 'contentDocument')?.get;
      if (!docOf) continue;
      wrapGetter(Frame.prototype, 'contentWindow', (w, frame) => apply(docOf, frame, []) && install(w));
      wrapGetter(Frame.prototype, 'contentDocument', (doc) => install(apply(viewOf, doc, [])));
    }
    // redact.js in a frame below asks as its document starts (relatedTarget: that document).
    win.addEventListener(REALM, (e) => {
      try {
        const doc = e.relatedTarget;
        if (doc && apply(typeOf, doc, []) === 9) install(apply(viewOf, doc, []));
      } catch {
        // not a document of this origin
      }
    }, true);
  };
  install(globalThis);
})();
