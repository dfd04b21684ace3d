// fill_form: several fields of a form in one call, each by ref or selector. What a field takes is
// decided by what it is: a <select> its option(s) by value or label, a checkbox or radio (or an ARIA
// one) true / false, anything else the text, typed as `fill` types it. Every target is resolved before
// anything is typed, so a wrong ref leaves the form untouched; a field that refuses its value fails
// the call with its own code and `data.field` (its index), the fields before it filled.
(() => {
  const agent = globalThis.__tabpilotAgent.use('form', {
    needs: ['PageError', 'commands.check', 'commands.fill', 'commands.select', 'resolve', 'watchNavigation'],
    provides: ['commands.fill_form'],
  });
  const { PageError } = agent;
  const TRUE = new Set(['true', 'on', 'yes', '1', 'checked']);
  const FALSE = new Set(['false', 'off', 'no', '0', '', 'unchecked']);
  const MAX_FIELDS = 100;

  function isCheckable(el) {
    const input = el.localName === 'label' && el.control ? el.control : el;
    if (input.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) return true;
    return ['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(el.getAttribute('role'));
  }

  function wanted(value, i) {
    if (typeof value === 'boolean') return value;
    const word = typeof value === 'string' ? value.trim().toLowerCase() : null;
    if (word !== null && TRUE.has(word)) return true;
    if (word !== null && FALSE.has(word)) return false;
    throw new PageError('invalid_params', `fields[${i}] is a checkbox or radio: its value is true or false`, { field: i });
  }

  /** The same failure, naming the field it happened at. */
  function at(err, i) {
    if (!(err instanceof PageError)) throw err;
    if (err.data && err.data.field === i) return err;
    return new PageError(err.code, `fields[${i}]: ${err.message}`, { ...(err.data || {}), field: i });
  }

  agent.commands.fill_form = ({ fields }) => agent.watchNavigation(() => {
    if (!Array.isArray(fields) || fields.length === 0 || fields.length > MAX_FIELDS) {
      throw new PageError('invalid_params', `fields must be a list of 1 to ${MAX_FIELDS} {ref or selector, value}`);
    }
    const targets = fields.map((f, i) => {
      if (!f || typeof f !== 'object' || (!f.ref && !f.selector)) throw new PageError('invalid_params', `fields[${i}] needs a ref or a selector`, { field: i });
      try {
        return { el: agent.resolve({ ref: f.ref, selector: f.selector }), where: { ref: f.ref, selector: f.selector } };
      } catch (err) {
        throw at(err, i);
      }
    });
    const kinds = [];
    targets.forEach(({ el, where }, i) => {
      const { value } = fields[i];
      try {
        if (el.localName === 'select') {
          const values = Array.isArray(value) ? value.map(String) : [String(value)];
          agent.commands.select({ ...where, values });
          kinds.push('select');
        } else if (isCheckable(el)) {
          agent.commands.check({ ...where, checked: wanted(value, i) });
          kinds.push('check');
        } else {
          if (typeof value !== 'string' && typeof value !== 'number') throw new PageError('invalid_params', `fields[${i}] is a text field: its value is a string`, { field: i });
          agent.commands.fill({ ...where, value: String(value) });
          kinds.push('fill');
        }
      } catch (err) {
        throw at(err, i);
      }
    });
    return { filled: kinds.length, fields: kinds };
  });
})();
