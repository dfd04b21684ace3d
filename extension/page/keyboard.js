// Keyboard and form actions of the page agent: fill, type, press, select. Synthetic key events are
// untrusted, so the browser performs none of their default actions; this file performs the ones a
// person expects: text goes in through the editing pipeline (execCommand insertText, which fires
// beforeinput/input like typing and keeps the undo stack; the native value setter as a fallback, so a
// React-controlled input sees the change), Enter in a form field submits the form the way implicit
// submission does, Tab moves the focus, Space/Enter activate buttons, Escape closes a <dialog>.
(() => {
  const agent = globalThis.__tabpilotAgent.use('keyboard', {
    needs: ['PageError', 'actionable', 'deepActive', 'describe', 'isSensitive', 'isVisible', 'markSecret', 'noteTyped', 'pointerClick', 'resolve', 'watchNavigation'],
    provides: ['commands.fill', 'commands.type', 'commands.press', 'commands.select'],
  });
  if (agent.commands.fill) return;
  const { PageError } = agent;

  const TEXT_TYPES = new Set(['text', 'search', 'url', 'tel', 'email', 'password', '']);
  const SET_TYPES = new Set(['number', 'date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  const NAMED = {
    Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, ' ': 32, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39,
    ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34, Shift: 16, Control: 17, Alt: 18, Meta: 91, Insert: 45,
    F1: 112, F2: 113, F3: 114, F4: 115, F5: 116, F6: 117, F7: 118, F8: 119, F9: 120, F10: 121, F11: 122, F12: 123,
  };
  const ALIAS = { Space: ' ', Esc: 'Escape', Return: 'Enter', Ctrl: 'Control', Cmd: 'Meta', Command: 'Meta', Option: 'Alt', Up: 'ArrowUp', Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight' };
  const MOD_FLAG = { Control: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey' };

  const refuse = (el, reason, detail) =>
    new PageError('not_interactable', `${agent.describe(el)} is not interactable: ${detail}`, { reason });

  // fill/type/press answer `secret: true` when the field holds a secret (redact.js decides: a
  // password now or once, a password autocomplete field, anything the redaction covers), so the host
  // keeps what was typed out of workflows and results.
  const typedInto = (el) => {
    if (!agent.isSensitive(el)) return {};
    agent.markSecret(el);
    agent.noteTyped(el);
    return { secret: true };
  };

  const isTextInput = (el) => (el.localName === 'input' && TEXT_TYPES.has(el.type)) || el.localName === 'textarea';
  const isEditable = (el) => isTextInput(el) || (el.isContentEditable === true);

  /** "Control+Shift+a" -> {key, code, keyCode, ctrlKey, shiftKey, ...}. */
  function parseKey(spec) {
    if (typeof spec !== 'string' || !spec) throw new PageError('invalid_params', 'key must be a key name such as Enter, Tab, a, Control+a');
    const parts = spec === '+' ? ['+'] : spec.endsWith('++') ? [...spec.slice(0, -2).split('+'), '+'] : spec.split('+');
    const init = {};
    for (const m of parts.slice(0, -1)) {
      const name = ALIAS[m] || m;
      if (!MOD_FLAG[name]) throw new PageError('invalid_params', `unknown modifier ${JSON.stringify(m)} in ${JSON.stringify(spec)}; use Control, Shift, Alt, Meta`);
      init[MOD_FLAG[name]] = true;
    }
    let key = parts[parts.length - 1];
    key = ALIAS[key] || key;
    if (key.length === 1) {
      const upper = key.toUpperCase();
      const code = /[a-z]/i.test(key) ? `Key${upper}` : /[0-9]/.test(key) ? `Digit${key}` : key === ' ' ? 'Space' : '';
      return { ...init, key: init.shiftKey ? upper : key, code, keyCode: upper.charCodeAt(0) };
    }
    if (!(key in NAMED)) throw new PageError('invalid_params', `unknown key ${JSON.stringify(key)}; use a character or one of ${Object.keys(NAMED).join(', ')}`);
    return { ...init, key, code: key, keyCode: NAMED[key] };
  }

  const keyEvent = (el, type, k) => el.dispatchEvent(new KeyboardEvent(type, {
    key: k.key, code: k.code, keyCode: k.keyCode, which: k.keyCode, charCode: type === 'keypress' ? k.key.charCodeAt(0) : 0,
    ctrlKey: !!k.ctrlKey, shiftKey: !!k.shiftKey, altKey: !!k.altKey, metaKey: !!k.metaKey,
    bubbles: true, cancelable: true, composed: true, view: el.ownerDocument.defaultView,
  }));

  const setValue = (el, value) => {
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set.call(el, value);
  };
  const inputEvent = (el, inputType, data) => el.dispatchEvent(new InputEvent('input', { inputType, data, bubbles: true, composed: true }));
  const changeEvent = (el) => el.dispatchEvent(new Event('change', { bubbles: true }));

  /** Insert `text` at the caret of the focused `el` as typing does (or delete the selection for ''). */
  function insert(el, text) {
    const doc = el.ownerDocument;
    const before = el.isContentEditable ? el.textContent : el.value;
    const command = text ? 'insertText' : 'delete';
    if (agent.deepActive(document) === el && doc.execCommand(command, false, text)) {
      const after = el.isContentEditable ? el.textContent : el.value;
      if (after !== before || !text) return;
    }
    if (el.isContentEditable) throw refuse(el, 'readonly', 'the page did not accept the text (the editor refused it)');
    let start = el.value.length;
    let end = start;
    try {
      if (el.selectionStart !== null) [start, end] = [el.selectionStart, el.selectionEnd];
    } catch { /* email and number inputs have no selection */ }
    setValue(el, el.value.slice(0, start) + text + el.value.slice(end));
    try {
      el.setSelectionRange(start + text.length, start + text.length);
    } catch { /* as above */ }
    inputEvent(el, text ? 'insertText' : 'deleteContentBackward', text || null);
  }

  /** Focus `el` for typing, refusing what a person could not type into. */
  function focusForTyping(el) {
    if (el.localName === 'label' && el.control) el = el.control;
    if (!isEditable(el) && !(el.localName === 'input' && SET_TYPES.has(el.type))) {
      if (el.localName === 'select') throw new PageError('invalid_params', `${agent.describe(el)} is a select: use action=select`);
      if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) throw new PageError('invalid_params', `${agent.describe(el)} is a ${el.type}: use action=check`);
      throw refuse(el, 'readonly', 'it is not a text field or editable element');
    }
    agent.actionable(el, { enabled: true });
    if (el.readOnly) throw refuse(el, 'readonly', 'it is read-only');
    if (agent.deepActive(document) !== el) el.focus({ preventScroll: true });
    return el;
  }

  // Past this many characters the text goes in as one insertion, as a paste does: a key's events and an
  // edit per character cost the page more with every character, and a 900 KB value froze the tab.
  const KEYED_CHARS = 2_000;

  function typeChars(el, text) {
    if (text.length > KEYED_CHARS) {
      insert(el, text);
      return;
    }
    for (const ch of text) {
      const k = { key: ch, code: '', keyCode: ch.toUpperCase().charCodeAt(0) };
      if (!keyEvent(el, 'keydown', k)) continue;
      if (keyEvent(el, 'keypress', k)) insert(el, ch);
      keyEvent(el, 'keyup', k);
    }
  }

  agent.commands.fill = (args) => {
    const el = focusForTyping(agent.resolve(args));
    const value = String(args.value ?? '');
    if (el.localName === 'input' && SET_TYPES.has(el.type)) {
      setValue(el, value);
      if (el.value !== value && !(value === '' && el.value === '')) {
        throw new PageError('invalid_params', `${agent.describe(el)} (type ${el.type}) does not accept that value; e.g. date 2024-05-31, time 13:45, month 2024-05, color #ff0000`);
      }
      inputEvent(el, 'insertReplacementText', null);
      changeEvent(el);
      return typedInto(el);
    }
    if (el.isContentEditable) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      const sel = el.ownerDocument.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    } else {
      el.select();
    }
    if (el.isContentEditable ? el.textContent : el.value) insert(el, '');
    typeChars(el, value);
    if (!el.isContentEditable) changeEvent(el);
    return typedInto(el);
  };

  agent.commands.type = (args) => {
    const target = args.ref || args.selector ? agent.resolve(args) : agent.deepActive(document);
    if (!target || target === document.body) throw new PageError('invalid_params', 'nothing has the focus: give a ref or selector');
    const el = focusForTyping(target);
    if (el.localName === 'input' && SET_TYPES.has(el.type)) throw new PageError('invalid_params', `${agent.describe(el)} is a ${el.type} input: use action=fill`);
    if (!el.isContentEditable) {
      try {
        el.setSelectionRange(el.value.length, el.value.length);
      } catch { /* no selection API */ }
    }
    typeChars(el, String(args.text ?? ''));
    return typedInto(el);
  };

  const tabbables = (doc) => [...doc.querySelectorAll('a[href],button,input,select,textarea,summary,[tabindex],[contenteditable]')]
    .filter((e) => e.tabIndex >= 0 && !e.matches(':disabled') && !(e.localName === 'input' && e.type === 'hidden') && agent.isVisible(e));

  /** The default action a person's key press would have had on `el`. */
  function defaultAction(el, k) {
    const tag = el.localName;
    const mod = k.ctrlKey || k.metaKey || k.altKey;
    const activates = tag === 'button' || tag === 'summary' || (tag === 'a' && el.hasAttribute('href')) || el.getAttribute('role') === 'button'
      || (tag === 'input' && ['submit', 'button', 'reset', 'image', 'checkbox', 'radio'].includes(el.type));
    if ((k.key === 'a') && (k.ctrlKey || k.metaKey)) {
      if (isTextInput(el)) el.select();
      else el.ownerDocument.getSelection().selectAllChildren(el.isContentEditable ? el : el.ownerDocument.body);
      return;
    }
    if (mod) return;
    switch (k.key) {
      case 'Enter':
        if (tag === 'textarea' || el.isContentEditable) return insert(el, '\n');
        if (activates && !(tag === 'input' && (el.type === 'checkbox' || el.type === 'radio'))) return agent.pointerClick(el);
        if (tag === 'input' && el.form) return implicitSubmit(el.form);
        return;
      case ' ':
        if (activates && tag !== 'a') return agent.pointerClick(el);
        if (isEditable(el)) return insert(el, ' ');
        return window.scrollBy({ top: innerHeight * 0.875, behavior: 'instant' });
      case 'Tab': {
        const list = tabbables(el.ownerDocument);
        const at = list.indexOf(el);
        const next = list[(at + (k.shiftKey ? -1 : 1) + list.length) % list.length];
        if (next) next.focus();
        return;
      }
      case 'Backspace':
      case 'Delete':
        if (isEditable(el) && !el.readOnly) {
          const doc = el.ownerDocument;
          if (!doc.execCommand(k.key === 'Backspace' ? 'delete' : 'forwardDelete')) insert(el, '');
        }
        return;
      case 'Escape': {
        const dialog = el.closest('dialog[open]') || [...el.ownerDocument.querySelectorAll('dialog[open]')].pop();
        if (dialog && dialog.dispatchEvent(new Event('cancel', { cancelable: true }))) dialog.close();
        return;
      }
      case 'ArrowDown':
      case 'ArrowUp':
        if (tag === 'select' && !el.multiple) {
          const i = el.selectedIndex + (k.key === 'ArrowDown' ? 1 : -1);
          if (i >= 0 && i < el.options.length) {
            el.selectedIndex = i;
            inputEvent(el, 'insertReplacementText', null);
            changeEvent(el);
          }
        } else if (!isEditable(el)) window.scrollBy({ top: k.key === 'ArrowDown' ? 40 : -40, behavior: 'instant' });
        return;
      case 'Home':
      case 'End':
        if (!isEditable(el)) window.scrollTo({ top: k.key === 'Home' ? 0 : document.scrollingElement.scrollHeight, behavior: 'instant' });
        return;
      case 'PageDown':
      case 'PageUp':
        if (!isEditable(el)) window.scrollBy({ top: (k.key === 'PageDown' ? 1 : -1) * innerHeight * 0.875, behavior: 'instant' });
        return;
      default:
        if (k.key.length === 1 && isEditable(el) && !el.readOnly) insert(el, k.key);
    }
  }

  /** Enter in a form field: click the form's default button, else submit (HTML implicit submission). */
  function implicitSubmit(form) {
    const button = [...form.elements].find((e) => (e.localName === 'button' && (e.type === 'submit'))
      || (e.localName === 'input' && (e.type === 'submit' || e.type === 'image')));
    if (button) {
      if (!button.matches(':disabled')) agent.pointerClick(button);
      return;
    }
    form.requestSubmit();
  }

  agent.commands.press = (args) => agent.watchNavigation(() => {
    const k = parseKey(args.key);
    let el = args.ref || args.selector ? agent.resolve(args) : agent.deepActive(document) || document.body;
    if (args.ref || args.selector) {
      if (!agent.isVisible(el)) throw refuse(el, 'hidden', 'it is hidden');
      if (agent.deepActive(document) !== el) el.focus({ preventScroll: true });
    }
    if (keyEvent(el, 'keydown', k)) {
      const printable = k.key.length === 1 && !k.ctrlKey && !k.metaKey && !k.altKey;
      if (!printable || keyEvent(el, 'keypress', k)) defaultAction(el, k);
    }
    keyEvent(agent.deepActive(document) || el, 'keyup', k);
    // A character pressed into a secret field is part of a secret (press sequences type passwords).
    return k.key.length === 1 && !k.ctrlKey && !k.metaKey && !k.altKey ? typedInto(el) : {};
  });

  agent.commands.select = (args) => {
    let el = agent.resolve(args);
    if (el.localName === 'label' && el.control) el = el.control;
    if (el.localName !== 'select') throw new PageError('invalid_params', `${agent.describe(el)} is not a <select>: click it, then click the option`);
    agent.actionable(el);
    const wanted = Array.isArray(args.values) ? args.values.map(String) : [];
    if (!wanted.length) throw new PageError('invalid_params', 'values must name at least one option (its value or its label)');
    if (wanted.length > 1 && !el.multiple) throw new PageError('invalid_params', `${agent.describe(el)} takes one option, got ${wanted.length}`);
    const options = [...el.options];
    const label = (o) => o.label.replace(/\s+/g, ' ').trim();
    const picked = wanted.map((w) => {
      const o = options.find((x) => x.value === w) || options.find((x) => label(x) === w.trim())
        || options.find((x) => label(x).toLowerCase() === w.trim().toLowerCase());
      if (!o) {
        // A secret select's options are its possible values: not listed.
        if (agent.isSensitive(el) || options.some((x) => agent.isSensitive(x))) {
          throw new PageError('element_not_found', `${agent.describe(el)} has no option ${JSON.stringify(w)} (its options are not listed: it holds a secret)`, { options: [] });
        }
        const names = options.slice(0, 30).map(label);
        throw new PageError('element_not_found', `${agent.describe(el)} has no option ${JSON.stringify(w)}; options: ${names.join(', ')}`, { options: names });
      }
      if (o.disabled) throw refuse(el, 'disabled', `its option ${JSON.stringify(w)} is disabled`);
      return o;
    });
    for (const o of options) o.selected = picked.includes(o);
    inputEvent(el, 'insertReplacementText', null);
    changeEvent(el);
    return agent.isSensitive(el) ? {} : { selected: picked.map((o) => o.value) };
  };
})();
