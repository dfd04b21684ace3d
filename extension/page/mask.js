// Masks for screenshots: every element the redaction rules cover (page/redact.js) and every run of
// secret-shaped text gets an opaque box over it, drawn in the top layer above the page, for the time
// of one capture. Same-origin frames and open shadow roots are masked from here; a cross-origin frame
// is masked by its own agent (lib/mask.js reaches it), or covered whole from here when it cannot be. Boxes sit at page coordinates, so a viewport, an element or a full-page capture
// all find them in place.
(() => {
  const agent = globalThis.__tabpilotAgent.use('mask', {
    needs: ['isSensitive', 'patternMatches', 'patternsHit', 'secretRoots', 'treesOf'],
    provides: ['commands.mask', 'commands.cover_frames', 'commands.unmask', 'commands.mask_settled'],
  });
  if (agent.commands.mask) return;
  const PAD = 2;
  const PAINT_MS = 3000; // the longest a frame with the boxes in it is waited for
  const MAX_POINTS = 64;
  const SILENT = new Set(['script', 'style', 'noscript', 'template', 'title']);
  let layer = null; // {host, root}

  /** Boxes (page coordinates of the top document here) over `doc`'s secrets, frames followed. */
  function collect(doc, offset, boxes, foreign) {
    const scopes = [...agent.treesOf(doc)]; // closed roots too: the page's own scripts cannot reach those
    const add = (rects, into) => {
      let any = false;
      for (const r of rects) {
        if (r.width < 1 || r.height < 1) continue;
        into.push({ x: r.left + offset.x - PAD, y: r.top + offset.y - PAD, w: r.width + 2 * PAD, h: r.height + 2 * PAD });
        any = true;
      }
      return any;
    };
    let regions = 0;
    for (const scope of scopes) {
      for (const el of agent.secretRoots(scope)) {
        if (agent.isSensitive(el.parentElement || el.getRootNode().host || null)) continue; // inside another secret
        const rects = el.getClientRects().length > 1 ? el.getClientRects() : [el.getBoundingClientRect()];
        if (add(rects, boxes)) regions += 1;
      }
      regions += patternRuns(scope, doc, offset, add, boxes);
    }
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      const r = frame.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      let inner = null;
      try {
        inner = frame.contentDocument;
      } catch {
        inner = null;
      }
      const at = { x: offset.x + r.left + frame.clientLeft, y: offset.y + r.top + frame.clientTop };
      if (inner && inner.documentElement) {
        if (agent.isSensitive(frame)) {
          if (add([r], boxes)) regions += 1;
        } else regions += collect(inner, at, boxes, foreign);
      } else {
        foreign.push({ url: frame.src || '', box: { x: r.left + offset.x, y: r.top + offset.y, w: r.width, h: r.height } });
      }
    }
    return regions;
  }

  /**
   * Boxes over secret-shaped text in `scope`: within one text node, split over several (a card number
   * in four spans), and in form fields' values (a readonly input); answers how many runs.
   */
  function patternRuns(scope, doc, offset, add, boxes) {
    let runs = 0;
    for (const el of scope.querySelectorAll('input, textarea')) {
      if (agent.patternsHit(el.value) && !agent.isSensitive(el) && add([el.getBoundingClientRect()], boxes)) runs += 1;
    }
    if (!agent.patternsHit(scope === doc ? (doc.body || doc.documentElement).textContent : scope.textContent)
      && !agent.patternsHit([...textNodes(scope, doc)].map((n) => n.data).join(' '))) return runs;
    const nodes = [...textNodes(scope, doc)];
    const seen = new Set();
    const mark = (n1, o1, n2, o2) => {
      const key = `${nodes.indexOf(n1)}:${o1}:${nodes.indexOf(n2)}:${o2}`;
      if (seen.has(key) || agent.isSensitive(n1.parentElement)) return;
      seen.add(key);
      const range = doc.createRange();
      range.setStart(n1, o1);
      range.setEnd(n2, o2);
      if (add(range.getClientRects(), boxes)) runs += 1;
    };
    for (const n of nodes) for (const { start, end } of agent.patternMatches(n.data)) mark(n, start, n, end);
    // The same runs found in the text as it reads across nodes (a space between two: "4111 1111 ...").
    const starts = [];
    let text = '';
    for (const n of nodes) {
      starts.push(text.length);
      text += `${n.data} `;
    }
    const at = (pos, end) => {
      let k = 0;
      while (k + 1 < nodes.length && (end ? starts[k + 1] < pos : starts[k + 1] <= pos)) k += 1;
      return [nodes[k], Math.min(pos - starts[k], nodes[k].data.length)];
    };
    for (const { start, end } of agent.patternMatches(text)) {
      const [n1, o1] = at(start, false);
      const [n2, o2] = at(end, true);
      if (n1 !== n2) mark(n1, o1, n2, o2);
    }
    return runs;
  }

  function* textNodes(scope, doc) {
    const walker = doc.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.data.trim() && !SILENT.has(n.parentElement && n.parentElement.localName)) yield n;
    }
  }

  function draw(boxes) {
    if (!boxes.length) return;
    if (!layer) {
      const host = document.createElement('div');
      const root = host.attachShadow({ mode: 'closed' });
      const style = {
        all: 'initial', position: 'absolute', left: '0', top: '0', right: 'auto', bottom: 'auto', width: '0',
        height: '0', margin: '0', padding: '0', border: '0', overflow: 'visible', background: 'transparent',
        'z-index': '2147483647', 'pointer-events': 'none', display: 'block',
      };
      for (const [k, v] of Object.entries(style)) host.style.setProperty(k, v, 'important');
      host.setAttribute('popover', 'manual');
      document.documentElement.append(host);
      try {
        host.showPopover(); // the top layer: above the page's own modal dialogs and popovers
      } catch {
        // No popover support: the highest z-index is the next best thing.
      }
      layer = { host, root };
    }
    for (const b of boxes) {
      const box = document.createElement('div');
      box.style.cssText = `position:absolute;left:${b.x}px;top:${b.y}px;width:${b.w}px;height:${b.h}px;background:#000;`;
      layer.root.append(box);
    }
  }

  let foreignFrames = [];
  // Between masking and the end of the capture nothing a secret's place depends on may change: the
  // page's animations of secrets (or their ancestors) are paused, and a change to a secret, to what
  // holds one, a new secret or a scroll marks the picture as unsafe (the worker takes it again).
  let watch = null; // {observer, moved, paused, onScroll, boxes}

  const secretsIn = (node) => node.nodeType === 1 && (agent.isSensitive(node) || agent.secretRoots(node).length > 0);
  const relevant = (r) => {
    const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    if (!t || (layer && (t === layer.host || layer.host.contains(t)))) return false;
    const moved = [...r.addedNodes, ...r.removedNodes];
    if (layer && moved.length && moved.every((n) => n === layer.host)) return false;
    if (r.type === 'characterData') return agent.patternsHit(r.target.data) || agent.isSensitive(t);
    if (secretsIn(t)) return true;
    return moved.some((n) => (n.nodeType === 3 ? agent.patternsHit(n.data) : secretsIn(n)));
  };

  function startWatch(boxes) {
    stopWatch();
    const w = { moved: false, paused: [], boxes };
    w.observer = new MutationObserver((records) => {
      if (!w.moved && records.some(relevant)) w.moved = true;
    });
    w.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    w.onScroll = () => { w.moved = true; };
    globalThis.addEventListener('scroll', w.onScroll, true);
    const secrets = agent.secretRoots(document);
    for (const a of document.getAnimations()) {
      const target = a.effect && a.effect.target;
      if (a.playState === 'running' && target && secrets.some((el) => target === el || target.contains(el))) {
        a.pause();
        w.paused.push(a);
      }
    }
    watch = w;
  }

  function stopWatch() {
    if (!watch) return;
    watch.observer.disconnect();
    globalThis.removeEventListener('scroll', watch.onScroll, true);
    for (const a of watch.paused) {
      try {
        a.play();
      } catch {
        // An animation the page cancelled meanwhile stays as the page left it.
      }
    }
    watch = null;
  }

  const key = (boxes) => JSON.stringify(boxes.map((b) => [b.x, b.y, b.w, b.h].map(Math.round)));

  /** Did anything a secret's place depends on change since the masks were drawn? */
  agent.commands.mask_settled = () => {
    if (!watch) return { settled: false }; // not the document that was masked: it navigated since
    const boxes = [];
    collect(document, { x: globalThis.scrollX, y: globalThis.scrollY }, boxes, []);
    return { settled: !watch.moved && key(boxes) === watch.boxes };
  };

  /** Mask this document's secrets; list the frames its agent cannot read (the worker goes there). */
  agent.commands.mask = async () => {
    agent.commands.unmask();
    const boxes = [];
    const foreign = [];
    const offset = { x: globalThis.scrollX, y: globalThis.scrollY };
    const regions = collect(document, offset, boxes, foreign);
    startWatch(key(boxes));
    foreignFrames = foreign;
    return { regions, frames: foreign.map((f) => f.url), ...(await shown(boxes)), viewport_width: globalThis.innerWidth, url: location.href };
  };

  /** Cover whole the listed frames (indexes into mask's `frames`) that could not be masked inside. */
  agent.commands.cover_frames = async ({ frames }) => {
    const boxes = (frames || []).map((k) => foreignFrames[k]).filter(Boolean).map((f) => f.box);
    return { covered: boxes.length, ...(await shown(boxes)) };
  };

  /**
   * Draw `boxes` and wait until they are painted. The capture reads the last painted frame: the boxes
   * must be in one, or no picture is taken (on a busy machine a frame can take long; `painted: false`
   * sends the worker round again). A hidden tab paints no frame until it is brought to the front, which
   * the capture waits for the same way. `points`: where the boxes' middles are in the viewport (at most
   * MAX_POINTS): the worker looks for them in the picture, which shows a box or not whatever the reason.
   */
  async function shown(boxes) {
    draw(boxes);
    let painted = true;
    if (boxes.length && document.visibilityState === 'visible') {
      painted = await Promise.race([
        new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))),
        new Promise((resolve) => setTimeout(() => resolve(false), PAINT_MS)),
      ]);
    }
    const x0 = globalThis.scrollX;
    const y0 = globalThis.scrollY;
    const points = boxes
      .map((b) => [b.x - x0 + b.w / 2, b.y - y0 + b.h / 2])
      .filter(([x, y]) => x >= 0 && y >= 0 && x < globalThis.innerWidth && y < globalThis.innerHeight)
      .slice(0, MAX_POINTS);
    return { painted, points };
  }

  /** Remove the masks. */
  agent.commands.unmask = () => {
    stopWatch();
    if (layer) layer.host.remove();
    layer = null;
    return {};
  };
})();
