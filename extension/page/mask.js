// Masks for screenshots: every element the redaction rules cover (page/redact.js) and every run of
// secret-shaped text gets an opaque box over it, drawn in the top layer above the page, for the time
// of one capture. Same-origin frames and open shadow roots are masked from here; a cross-origin frame
// is masked by its own agent (lib/mask.js reaches it), or covered whole from here when it cannot be. Boxes sit at page coordinates, so a viewport, an element or a full-page capture
// all find them in place.
(() => {
  const agent = globalThis.__tabpilotAgent.use('mask', {
    needs: ['isSensitive', 'patternMatches', 'patternsHit', 'secretRoots'],
    provides: ['commands.mask', 'commands.cover_frames', 'commands.unmask'],
  });
  if (agent.commands.mask) return;
  const PAD = 2;
  let layer = null; // {host, root}

  /** Open shadow roots under `root`, depth first. */
  function shadowRoots(root, out = []) {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        out.push(el.shadowRoot);
        shadowRoots(el.shadowRoot, out);
      }
    }
    return out;
  }

  /** Boxes (page coordinates of the top document here) over `doc`'s secrets, frames followed. */
  function collect(doc, offset, boxes, foreign) {
    const scopes = [doc, ...shadowRoots(doc)];
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

  /** Boxes over secret-shaped text in `scope`'s text nodes; answers how many runs. */
  function patternRuns(scope, doc, offset, add, boxes) {
    if (!agent.patternsHit(scope === doc ? (doc.body || doc.documentElement).textContent : scope.textContent)) return 0;
    let runs = 0;
    const walker = doc.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const found = agent.patternMatches(n.data);
      if (!found.length || agent.isSensitive(n.parentElement)) continue; // masked whole already
      for (const { start, end } of found) {
        const range = doc.createRange();
        range.setStart(n, start);
        range.setEnd(n, end);
        if (add(range.getClientRects(), boxes)) runs += 1;
      }
    }
    return runs;
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

  /** Mask this document's secrets; list the frames its agent cannot read (the worker goes there). */
  agent.commands.mask = async () => {
    agent.commands.unmask();
    const boxes = [];
    const foreign = [];
    const offset = { x: globalThis.scrollX, y: globalThis.scrollY };
    const regions = collect(document, offset, boxes, foreign);
    if (boxes.length) draw(boxes);
    foreignFrames = foreign;
    // The capture reads the last painted frame: the boxes must be in one. A hidden tab paints no
    // frame until it is brought to the front, which the capture waits for anyway.
    if (boxes.length && document.visibilityState === 'visible') {
      await Promise.race([
        new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        new Promise((resolve) => setTimeout(resolve, 500)),
      ]);
    }
    return { regions, frames: foreign.map((f) => f.url) };
  };

  /** Cover whole the listed frames (indexes into mask's `frames`) that could not be masked inside. */
  agent.commands.cover_frames = ({ frames }) => {
    const boxes = (frames || []).map((k) => foreignFrames[k]).filter(Boolean).map((f) => f.box);
    draw(boxes);
    return { covered: boxes.length };
  };

  /** Remove the masks. */
  agent.commands.unmask = () => {
    if (layer) layer.host.remove();
    layer = null;
    return {};
  };
})();
