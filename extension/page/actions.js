// Pointer actions of the page agent: click, hover, check, scroll, highlight. Each acts on a ref or a
// selector the way a person would: the element is scrolled into view and must be visible, enabled and
// the topmost thing at its centre, else not_interactable says why (hidden / disabled / covered).
// Events are synthetic (isTrusted false); a dispatched click still runs the element's activation
// behaviour (links follow, checkboxes toggle, submit buttons submit).
(() => {
  const agent = globalThis.__tabpilotAgent.use('actions', {
    needs: ['PageError', 'describe', 'isVisible', 'resolve'],
    provides: ['deepActive', 'reveal', 'actionable', 'watchNavigation', 'pointerClick', 'commands.click', 'commands.hover', 'commands.check', 'commands.scroll', 'commands.highlight'],
  });
  if (agent.actionable) return;
  const { PageError } = agent;

  const refuse = (el, reason, detail) =>
    new PageError('not_interactable', `${agent.describe(el)} is not interactable: ${detail}`, { reason });

  const deepActive = (doc) => {
    let a = doc.activeElement;
    while (a) {
      const inner = a.shadowRoot?.activeElement || (a.localName === 'iframe' ? safeDoc(a)?.activeElement : null);
      if (!inner) break;
      a = inner;
    }
    return a;
  };
  const safeDoc = (frame) => {
    try {
      return frame.contentDocument;
    } catch {
      return null;
    }
  };
  agent.deepActive = deepActive;

  /** Scroll `el` to the middle of its viewport unless it is already wholly in view. */
  agent.reveal = (el) => {
    const win = el.ownerDocument.defaultView;
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > win.innerHeight || r.right > win.innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    }
  };

  /** The point a person would click: the centre of the part of `el` inside the viewport. */
  const centre = (el) => {
    const win = el.ownerDocument.defaultView;
    const r = el.getBoundingClientRect();
    const left = Math.max(r.left, 0);
    const right = Math.min(r.right, win.innerWidth);
    const top = Math.max(r.top, 0);
    const bottom = Math.min(r.bottom, win.innerHeight);
    return { x: (left + right) / 2, y: (top + bottom) / 2, inView: right > left && bottom > top };
  };

  const disabled = (el) => el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true';

  /** Check `el` can take a pointer action; answers the point to aim at. */
  agent.actionable = (el, { enabled = true } = {}) => {
    if (!agent.isVisible(el)) throw refuse(el, 'hidden', 'it is hidden (display/visibility/zero size); reveal it first');
    if (enabled && disabled(el)) throw refuse(el, 'disabled', 'it is disabled');
    agent.reveal(el);
    const p = centre(el);
    if (!p.inView) throw refuse(el, 'hidden', 'it cannot be scrolled into the viewport');
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : el.ownerDocument).elementFromPoint(p.x, p.y);
    const ok = hit && (hit === el || el.contains(hit) || hit.closest?.('label')?.control === el);
    if (!ok) {
      const by = hit ? agent.describe(hit) : 'nothing (outside the page)';
      throw refuse(el, 'covered', `it is covered by ${by} at its centre; close or scroll away what covers it`);
    }
    return p;
  };

  /**
   * Run action `fn` and say whether it started a navigation: `nav` is "cross" (a new document is
   * loading), "same" (history/fragment change), "tab" (a link with a target opened another tab)
   * or "submit" (a form was submitted and not prevented;
   * the browser starts that navigation in a later task). The worker waits for the load it implies.
   */
  agent.watchNavigation = (fn) => {
    const seen = { nav: null, url: null };
    const onNavigate = (e) => {
      seen.url = e.destination?.url || null;
      seen.nav = e.destination?.sameDocument ? seen.nav || 'same' : 'cross';
    };
    const onUnload = () => {
      seen.nav = 'cross';
    };
    let submitted = null;
    const onSubmit = (e) => {
      submitted = e;
    };
    const clicks = [];
    const onClick = (e) => {
      clicks.push(e);
    };
    const nav = globalThis.navigation;
    nav?.addEventListener('navigate', onNavigate);
    window.addEventListener('beforeunload', onUnload);
    document.addEventListener('submit', onSubmit, true);
    document.addEventListener('click', onClick, true);
    let out;
    try {
      out = fn() || {};
    } finally {
      nav?.removeEventListener('navigate', onNavigate);
      window.removeEventListener('beforeunload', onUnload);
      document.removeEventListener('submit', onSubmit, true);
      document.removeEventListener('click', onClick, true);
    }
    // A link whose target names another browsing context opens a tab; the worker sees which.
    const link = clicks.find((e) => !e.defaultPrevented && e.target.closest?.('a[href]'))?.target.closest('a[href]');
    const target = link?.getAttribute('target');
    if (!seen.nav && link && target && !['_self', '_parent', '_top'].includes(target.toLowerCase())) seen.nav = 'tab';
    if (!seen.nav && submitted && !submitted.defaultPrevented) {
      const form = submitted.target;
      const method = (submitted.submitter?.getAttribute('formmethod') || form.method || '').toLowerCase();
      const target = submitted.submitter?.getAttribute('formtarget') || form.target || '';
      if (method !== 'dialog' && (!target || target === '_self')) seen.nav = 'submit';
    }
    return seen.nav ? { ...out, nav: seen.nav, ...(seen.url ? { nav_url: seen.url } : {}) } : out;
  };

  const MODS = { Alt: 'altKey', Control: 'ctrlKey', Meta: 'metaKey', Shift: 'shiftKey' };
  const modifierInit = (mods) => {
    const init = {};
    for (const m of mods || []) {
      if (!MODS[m]) throw new PageError('invalid_params', `unknown modifier ${JSON.stringify(m)}; use Alt, Control, Meta, Shift`);
      init[MODS[m]] = true;
    }
    return init;
  };

  const fire = (el, type, init, Kind = MouseEvent) => el.dispatchEvent(new Kind(type, {
    bubbles: !/enter|leave/.test(type), cancelable: !/enter|leave/.test(type), composed: true, view: el.ownerDocument.defaultView, ...init,
  }));

  const FOCUSABLE = 'a[href],button,input,select,textarea,summary,[tabindex],[contenteditable]';

  const hoverEvents = (el, base) => {
    fire(el, 'pointerover', base, PointerEvent);
    fire(el, 'pointerenter', base, PointerEvent);
    fire(el, 'mouseover', base);
    fire(el, 'mouseenter', base);
    fire(el, 'pointermove', base, PointerEvent);
    fire(el, 'mousemove', base);
  };

  /** Press and release the pointer on `el` (`count` times) as a person's click does. */
  agent.pointerClick = (el, { button = 'left', count = 1, modifiers = [] } = {}) => {
    const p = agent.actionable(el);
    const code = { left: 0, middle: 1, right: 2 }[button];
    if (code === undefined) throw new PageError('invalid_params', 'button must be left, middle or right');
    const base = { clientX: p.x, clientY: p.y, button: code, pointerId: 1, pointerType: 'mouse', isPrimary: true, ...modifierInit(modifiers) };
    hoverEvents(el, { ...base, button: 0 });
    for (let i = 1; i <= count; i += 1) {
      const down = { ...base, buttons: 1 << (code === 1 ? 2 : code === 2 ? 1 : 0), detail: i };
      fire(el, 'pointerdown', down, PointerEvent);
      if (fire(el, 'mousedown', down)) {
        // A real mousedown focuses; a dispatched one does not.
        const target = el.closest(FOCUSABLE);
        if (target) target.focus({ preventScroll: true });
      }
      fire(el, 'pointerup', { ...base, detail: i }, PointerEvent);
      fire(el, 'mouseup', { ...base, detail: i });
      if (code === 0) fire(el, 'click', { ...base, detail: i }, PointerEvent);
      else if (code === 1) fire(el, 'auxclick', { ...base, detail: i }, PointerEvent);
      else fire(el, 'contextmenu', { ...base, detail: i }, PointerEvent);
    }
    if (code === 0 && count === 2) fire(el, 'dblclick', { ...base, detail: 2 });
  };

  agent.commands.click = (args) => agent.watchNavigation(() => {
    agent.pointerClick(agent.resolve(args), { button: args.button, count: args.click_count || 1, modifiers: args.modifiers });
  });

  agent.commands.hover = (args) => {
    const el = agent.resolve(args);
    const p = agent.actionable(el, { enabled: false });
    hoverEvents(el, { clientX: p.x, clientY: p.y, pointerId: 1, pointerType: 'mouse', isPrimary: true });
    return {};
  };

  /** What `check` acts on: a checkbox/radio input or an ARIA one, and the element to click for it. */
  const checkable = (el) => {
    const input = el.localName === 'label' && el.control ? el.control : el;
    if (input.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) {
      const clickOn = agent.isVisible(input) ? input : el.localName === 'label' ? el : input.labels?.[0] || input;
      return { read: () => input.checked, radio: input.type === 'radio', clickOn };
    }
    const role = el.getAttribute('role');
    if (['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
      return { read: () => el.getAttribute('aria-checked') === 'true', radio: role.endsWith('radio'), clickOn: el };
    }
    throw new PageError('invalid_params', `${agent.describe(el)} is not a checkbox or radio: use click`);
  };

  agent.commands.check = (args) => agent.watchNavigation(() => {
    const want = args.checked !== false;
    const c = checkable(agent.resolve(args));
    if (c.read() === want) return { checked: want, changed: false };
    if (!want && c.radio) throw new PageError('invalid_params', 'a radio button cannot be unchecked: check another one of its group');
    agent.pointerClick(c.clickOn);
    if (c.read() !== want) throw refuse(c.clickOn, 'prevented', 'clicking it did not change its state (the page prevents it)');
    return { checked: want, changed: true };
  });

  agent.commands.scroll = (args) => {
    const el = args.ref || args.selector ? agent.resolve(args) : null;
    const dx = args.dx || 0;
    const dy = args.dy || 0;
    if (el && !dx && !dy && !args.to) {
      if (!agent.isVisible(el)) throw refuse(el, 'hidden', 'it is hidden; there is nothing to scroll into view');
      el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
    } else {
      const box = el || document.scrollingElement || document.documentElement;
      if (args.to === 'top') box.scrollTo({ top: 0, behavior: 'instant' });
      else if (args.to === 'bottom') box.scrollTo({ top: box.scrollHeight, behavior: 'instant' });
      else if (args.to) throw new PageError('invalid_params', 'to must be top or bottom');
      if (dx || dy) box.scrollBy({ left: dx, top: dy, behavior: 'instant' });
      if (el) return { scroll_x: Math.round(el.scrollLeft), scroll_y: Math.round(el.scrollTop), max_y: el.scrollHeight - el.clientHeight };
    }
    const page = document.scrollingElement || document.documentElement;
    return { scroll_x: Math.round(scrollX), scroll_y: Math.round(scrollY), max_y: page.scrollHeight - innerHeight };
  };

  const HIGHLIGHT_ID = 'tabpilot-highlighter';
  let highlightTimer = null;

  agent.commands.highlight = (args) => {
    const el = agent.resolve(args);
    if (!agent.isVisible(el)) throw refuse(el, 'hidden', 'it is hidden; there is nothing to point at');
    agent.reveal(el);
    // Offsets of the frames between el's document and this one: the overlay lives in the top document.
    const r = el.getBoundingClientRect();
    let x = r.left;
    let y = r.top;
    for (let win = el.ownerDocument.defaultView; win && win.frameElement && win !== window; win = win.parent) {
      const f = win.frameElement.getBoundingClientRect();
      x += f.left + win.frameElement.clientLeft;
      y += f.top + win.frameElement.clientTop;
    }
    document.getElementById(HIGHLIGHT_ID)?.remove();
    clearTimeout(highlightTimer);
    const box = document.createElement('div');
    box.id = HIGHLIGHT_ID;
    const style = {
      position: 'fixed', left: `${x}px`, top: `${y}px`, width: `${r.width}px`, height: `${r.height}px`,
      border: '4px solid red', 'box-sizing': 'border-box', 'z-index': '2147483647', 'pointer-events': 'none', margin: '0', padding: '0',
    };
    for (const [k, v] of Object.entries(style)) box.style.setProperty(k, v, 'important');
    document.documentElement.appendChild(box);
    const duration = Number.isInteger(args.duration_ms) && args.duration_ms > 0 ? args.duration_ms : 5000;
    highlightTimer = setTimeout(() => box.remove(), duration);
    const bounds = { x: Math.round(x), y: Math.round(y), width: Math.round(r.width), height: Math.round(r.height) };
    return { success: true, bounds };
  };
})();
