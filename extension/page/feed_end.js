// The end of an infinite feed as the feed itself shows it, when no until_selector names it: a short
// notice after the rows ("End of content", "No more posts", "You're all caught up") that a person sees
// appear at the bottom. Feed libraries keep it in the DOM hidden from the start, or add it with the last
// batch; a notice already shown when this document's first scroll began is the page's own text (a
// footer), never the end. With it, a feed ends on its own word instead of after quiet_ms of silence.
(() => {
  const agent = globalThis.__tabpilotAgent.use('feed_end', {
    needs: ['isVisible', 'secretRoots'],
    provides: ['feedEnd'],
  });
  if (agent.feedEnd) return;
  const PHRASE = /\b(end of (the )?(content|results|list|feed|posts|items|stories|page)|no more (results|items|posts|entries|content|articles|stories|records|rows|to (show|load|see))|nothing (more|else) to (show|load|see)|(you('ve| have)|you're) (reached|seen) (the end|the bottom|it all|everything)|(you're )?all caught up|that'?s all( for now)?[.!]?$)/i;
  const MAX_TEXT = 100;
  // Past this many elements after the rows, the rest of the page is not the feed's bottom.
  const MAX_LOOK = 2_000;
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'svg']);
  const squeeze = (text) => text.replace(/\s+/g, ' ').trim();

  /** The first element after `last` (and after everything inside it), in document order. */
  function following(last) {
    for (let n = last; n && n !== document.body; n = n.parentElement) {
      if (n.nextElementSibling) return n.nextElementSibling;
    }
    return null;
  }

  /** Elements after the last row whose own short text says the feed ended. */
  function notices(rowSelector) {
    const rows = document.querySelectorAll(rowSelector);
    const start = rows.length ? following(rows[rows.length - 1]) : null;
    if (!start) return [];
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {
      acceptNode: (el) => (SKIP.has(el.localName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    walker.currentNode = start;
    let looked = 0;
    for (let el = start; el && looked < MAX_LOOK; el = walker.nextNode(), looked += 1) {
      if (SKIP.has(el.localName)) continue;
      const text = el.textContent;
      if (text.length > MAX_TEXT || !PHRASE.test(squeeze(text))) continue;
      // What a person reads, not the markup's text: a status block holds "Loading…", "End of feed"
      // and "Could not load more" at once, and shows one at a time (innerText leaves hidden ones out).
      if (PHRASE.test(squeeze(el.innerText))) out.push(el);
    }
    if (!out.length) return out;
    // Text inside a redacted area says nothing to us, end of feed or not (looked up only on a match:
    // this runs at every change while the feed loads).
    const secrets = agent.secretRoots(document);
    return out.filter((el) => !secrets.some((s) => s.contains(el)));
  }

  // The notices shown when this document's feed was first scrolled (the guard above keeps it per document).
  let shownAtStart = null;

  agent.feedEnd = {
    /** Remember the notices shown now, the first time this document's feed is scrolled. */
    start(rowSelector) {
      if (shownAtStart) return;
      shownAtStart = new WeakSet(notices(rowSelector).filter((el) => agent.isVisible(el)));
    },
    /** Whether a notice not shown at the start is visible now. */
    shown(rowSelector) {
      return notices(rowSelector).some((el) => !(shownAtStart && shownAtStart.has(el)) && agent.isVisible(el));
    },
  };
})();
