"""The corpus's feeds and index-less grids (tests/fixtures/realapps/feedgrid_tasks.py) as an expert writes
them for Playwright MCP: one `browser_run_code_unsafe` call each, a hand-written loop that knows the
page (its rows, its scrolling box, how it ends) and waits only for the page to change, never a fixed
time. Each returns rows in the shape of the task's ground truth, so the benchmark checks them too."""

from __future__ import annotations

import json
from typing import Any

from tests.fixtures.realapps import feedgrid_tasks as fg
from tests.fixtures.realapps import tasks

# Waits (bounded) until `done()` holds, checked on every change of the page's DOM: a feed's own load time.
_CHANGED = """
  const changed = (done, ms = 15000) => new Promise((resolve, reject) => {
    if (done()) return resolve();
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); clearTimeout(t); resolve(); } });
    obs.observe(document.body, { childList: true, subtree: true, attributes: true });
    const t = setTimeout(() => { obs.disconnect(); reject(new Error("the page stopped changing")); }, ms);
  });
"""

_POSTS = """
  const posts = () => [...document.querySelectorAll(".feed .post")].map((p) => {
    const c = (s) => p.querySelector(s).textContent.trim();
    return {id: Number(c(".post-id")), title: c(".post-title"), author: c(".post-author"),
            likes: Number(c(".post-likes"))};
  });
  const count = () => document.querySelectorAll(".feed .post").length;
  const shown = (s) => { const e = document.querySelector(s); return !!e && e.getClientRects().length > 0; };
"""

# metafizzy infinite-scroll on scroll: to the bottom, until new posts or its "End of feed" notice show.
_INFINITE = f"""{_CHANGED}{_POSTS}
  while (!shown(".infinite-scroll-last")) {{
    const n = count();
    window.scrollTo(0, document.documentElement.scrollHeight);
    await changed(() => count() > n || shown(".infinite-scroll-last"));
  }}
  return posts();
"""

# The same feed in button mode: "View more" until the end notice shows.
_VIEW_MORE = f"""{_CHANGED}{_POSTS}
  while (!shown(".infinite-scroll-last")) {{
    const n = count();
    document.querySelector(".view-more-button").click();
    await changed(() => count() > n || shown(".infinite-scroll-last"));
  }}
  return posts();
"""

# htmx: the last row loads the next batch when revealed; the last batch's last row has no hx-get.
_HTMX = f"""{_CHANGED}
  const rows = () => document.querySelectorAll("#posts tr");
  for (;;) {{
    const all = rows();
    const last = all[all.length - 1];
    if (!last.hasAttribute("hx-get")) break;
    last.scrollIntoView();
    await changed(() => rows().length > all.length);
  }}
  return [...rows()].map((tr) => {{
    const c = (s) => tr.querySelector("td." + s).textContent.trim();
    return {{id: Number(c("id")), title: c("title"), author: c("author"), likes: Number(c("likes"))}};
  }});
"""


def _grid(box: str, rows: str, cell: str) -> str:
    """A grid: its box (a selector, or "" for the rows' nearest scrolling ancestor) scrolled most of a
    screen at a time; after each step the rows read once a frame until they differ from those before
    the step (or three frames passed) and read the same twice (the grid has drawn), each kept once by
    its id, in the order they lie in the box."""
    return f"""
  const scrolls = (e) =>
    e.scrollHeight > e.clientHeight + 1 && ["auto", "scroll"].includes(getComputedStyle(e).overflowY);
  let box = document.querySelector({json.dumps(box or rows)});
  while (!scrolls(box)) box = box.parentElement;
  const cell = (tr, n) => tr.querySelector({json.dumps(cell)}.replace("$", n))?.textContent.trim();
  // Each row with where it lies in the box's content (grids recycle rows out of document order).
  const read = () => [...document.querySelectorAll({json.dumps(rows)})].map((tr) => [
    tr.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop,
    {{id: Number(cell(tr, "id")), sku: cell(tr, "sku"), product: cell(tr, "product"),
      price: Number(cell(tr, "price")), stock: Number(cell(tr, "stock"))}}]);
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const seen = new Map();
  // Drawn: the rows differ from those before the scroll (or the grid kept them through three frames:
  // they cover the new position too), then read the same a frame apart.
  const settled = async (before) => {{
    let last = "";
    for (let i = 0; i < 300; i++) {{
      await frame();
      const now = read();
      const text = JSON.stringify(now);
      if (text === last && (text !== before || i >= 3)) return [now, text];
      last = text;
    }}
    throw new Error("the grid did not redraw");
  }};
  let shown = null;
  for (;;) {{
    const [rows, text] = await settled(shown);
    shown = text;
    for (const [y, r] of rows) if (!seen.has(r.id)) seen.set(r.id, [y, r]);
    const before = box.scrollTop;
    box.scrollTop = before + Math.floor(box.clientHeight * 0.9);
    if (box.scrollTop === before) break;
  }}
  return [...seen.values()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
"""


def _code(wait: str, body: str) -> str:
    wait_for = f"await page.waitForSelector({json.dumps(wait)});"
    return f"async (page) => {{ {wait_for} return await page.evaluate(async () => {{{body}}}); }}"


SCRIPTS: dict[str, str] = {
    fg.INFINITE_SCROLL.task.name: _code(".feed .post", _INFINITE),
    fg.VIEW_MORE.task.name: _code(".feed .post", _VIEW_MORE),
    fg.HTMX.task.name: _code("tr.post-row", _HTMX),
    fg.TABULATOR.task.name: _code(
        ".tabulator-row", _grid(".tabulator-tableholder", ".tabulator-row", '[tabulator-field="$"]')
    ),
    tasks.AGGRID.name: _code(tasks.GRID_ROWS, _grid("", tasks.GRID_ROWS, "[col-id=$]")),
    fg.CLUSTERIZE.task.name: _code(
        ".clusterize-content td", _grid("#scrollArea", ".clusterize-content tr:has(td.id)", "td.$")
    ),
}


def call(name: str) -> tuple[str, dict[str, Any]]:
    """The task's one Playwright MCP call."""
    return ("browser_run_code_unsafe", {"code": SCRIPTS[name]})


def _generic(rows: str, read: str) -> str:
    """A feed as an expert scrolls one without studying how it ends: press a visible "more" button, else
    scroll to the bottom; wait for more rows (Playwright's waitForFunction, checked each frame); the end
    is a second with none."""
    return f"""async (page) => {{
  const rows = page.locator({json.dumps(rows)});
  const more = page.getByRole("button", {{ name: /more/i }});
  let n = await rows.count();
  for (;;) {{
    if (await more.isVisible()) await more.click();
    else await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    try {{
      await page.waitForFunction(([s, n]) => document.querySelectorAll(s).length > n, [{json.dumps(rows)}, n],
                                 {{ timeout: 1000 }});
    }} catch {{
      break;
    }}
    n = await rows.count();
  }}
  return await page.evaluate(() => {{{read}}});
}}"""


_READ_POSTS = f"{_POSTS}\n  return posts();"
_READ_TABLE = """
  return [...document.querySelectorAll("#posts tr")].map((tr) => {
    const c = (s) => tr.querySelector("td." + s).textContent.trim();
    return {id: Number(c("id")), title: c("title"), author: c("author"), likes: Number(c("likes"))};
  });
"""
GENERIC: dict[str, str] = {
    fg.INFINITE_SCROLL.task.name: _generic(".feed .post", _READ_POSTS),
    fg.VIEW_MORE.task.name: _generic(".feed .post", _READ_POSTS),
    fg.HTMX.task.name: _generic("#posts tr", _READ_TABLE),
}


def generic_call(name: str) -> tuple[str, dict[str, Any]] | None:
    """The feed's call as a generic scroll loop (None for a grid)."""
    code = GENERIC.get(name)
    return None if code is None else ("browser_run_code_unsafe", {"code": code})
