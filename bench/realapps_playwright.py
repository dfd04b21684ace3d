"""The corpus tasks as an expert writes them for Playwright MCP: one `browser_run_code_unsafe` call each,
with a hand-written script (fetch + DOMParser for linked pages, the page's own events for in-place
ones). Each returns rows in the shape of the task's ground truth, so the benchmark checks them too."""

from __future__ import annotations

import json
from typing import Any

from tests.fixtures.realapps import data, fast_data, fast_tasks, tasks

# Reads Roundup's index rows from `doc`, follows the Next link by fetching it.
_ROUNDUP_PAGES = """
  const rows = [];
  let doc = document;
  for (;;) {
    for (const tr of doc.querySelectorAll("table.list tr:has(td)")) {
      const td = tr.children;
      rows.push({id: td[1].textContent.trim(), title: td[2].querySelector("a").textContent.trim(),
                 priority: td[0].textContent.trim(), status: td[3].textContent.trim()});
    }
    const next = doc.querySelector("tr.navigation th:last-child a");
    if (!next) return rows;
    doc = new DOMParser().parseFromString(await (await fetch(next.href)).text(), "text/html");
  }
"""

_ADMIN_PAGES = """
  const rows = [];
  let doc = document;
  for (;;) {
    for (const tr of doc.querySelectorAll("table.model-list tbody tr")) {
      const cell = (c) => tr.querySelector("td.col-" + c).textContent.trim();
      rows.push({code: cell("code"), name: cell("name"), country: cell("country"),
                 balance: Number(cell("balance")), active: tr.querySelector("td.col-active span").title});
    }
    const next = doc.querySelector("ul.pagination li:nth-last-child(2) a");
    if (!next || next.closest("li").classList.contains("disabled")) return rows;
    doc = new DOMParser().parseFromString(await (await fetch(next.href)).text(), "text/html");
  }
"""

# Reads Dash's rows, clicks Next and waits (one animation frame at a time) for the first id to change.
_DASH_PAGES = """
  const ROWS = ".dash-spreadsheet tbody tr:has(td.dash-cell)";
  const read = () => [...document.querySelectorAll(ROWS)].map((tr) => {
    const c = (n) => tr.querySelector(`td[data-dash-column=${n}]`).textContent.trim();
    return {id: c("id"), customer: c("customer"), fruit: c("fruit"),
            quantity: Number(c("quantity")), total: Number(c("total"))};
  });
  const rows = [];
  for (;;) {
    const shown = read();
    rows.push(...shown);
    const next = document.querySelector("button.next-page");
    if (!next || next.disabled) return rows;
    next.click();
    await new Promise((done) => {
      const check = () => {
        const first = document.querySelector(ROWS + " td[data-dash-column=id]");
        if (first && first.textContent.trim() !== shown[0].id) done(); else requestAnimationFrame(check);
      };
      check();
    });
  }
"""

# Scrolls the grid's own viewport half a screen at a time, keeping each row once by its row-index.
_GRID_ROWS = """
  const scrolls = (e) => ["auto", "scroll"].includes(getComputedStyle(e).overflowY);
  const viewport = [...document.querySelectorAll("#stock *")].find(
    (e) => e.scrollHeight > e.clientHeight + 10 && scrolls(e));
  const seen = new Map();
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const drawn = (i) => document.querySelector(`.ag-row[row-index="${i}"] [col-id=stock]`);
  for (;;) {
    for (const row of document.querySelectorAll(".ag-grid-scrolling-container .ag-row")) {
      if (!row.querySelector("[col-id=stock]")) continue;
      const c = (n) => row.querySelector(`[col-id=${n}]`).textContent.trim();
      seen.set(Number(row.getAttribute("row-index")), {id: Number(c("id")), sku: c("sku"),
        product: c("product"), price: Number(c("price")), stock: Number(c("stock"))});
    }
    const before = viewport.scrollTop;
    viewport.scrollTop += viewport.clientHeight / 2;
    if (viewport.scrollTop === before) break;  // at the end
    // The grid draws a few frames after the scroll: wait for the first row not seen yet (bounded), so
    // the rows read stay contiguous.
    const next = Math.max(...seen.keys()) + 1;
    for (let i = 0; i < 300 && !drawn(next); i++) await frame();
  }
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
"""


# The fast data browser: a list's rows, its `a[rel=next]` link fetched until there is none.
_FAST_PAGES = """
  const rows = [];
  let doc = document;
  for (;;) {
    for (const tr of doc.querySelectorAll(ROWS)) {
      const c = (n) => tr.querySelector("td." + n).textContent.trim();
      rows.push(READ);
    }
    const next = doc.querySelector("nav.pager a[rel=next]");
    if (!next) return rows;
    doc = new DOMParser().parseFromString(await (await fetch(next.href)).text(), "text/html");
  }
"""
_FAST_RECORD = (
    "{id: Number(c('id')), sku: c('sku'), product: c('product'), price: Number(c('price')), "
    "stock: Number(c('stock'))}"
)
_FAST_ORDER = "{id: Number(c('id')), customer: c('customer'), state: c('state'), total: Number(c('total'))}"
# After the login: the first orders, every one's page fetched at once and read.
_FAST_DETAILS = """
  const links = [...document.querySelectorAll("table.orders tbody tr td.id a")].slice(0, LIMIT);
  return Promise.all(links.map(async (a) => {
    const doc = new DOMParser().parseFromString(await (await fetch(a.href)).text(), "text/html");
    return {id: Number(a.textContent.trim()), city: doc.querySelector("dd.city").textContent.trim(),
            items: Number(doc.querySelector("dd.items").textContent.trim())};
  }));
"""


def _in_page(body: str) -> str:
    return f"return await page.evaluate(async () => {{{body}}});"


def _roundup(url: str) -> str:
    return f"""async (page) => {{
  await page.goto({json.dumps(url + tasks.ROUNDUP_INDEX)});
  await page.fill("input[name=__login_name]", {json.dumps(data.USER)});
  await page.fill("input[name=__login_password]", {json.dumps(data.PASSWORD)});
  await Promise.all([page.waitForNavigation(), page.click("input[type=submit][value=Login]")]);
  {_in_page(_ROUNDUP_PAGES)}
}}"""


def _admin(url: str) -> str:
    return f"async (page) => {{ {_in_page(_ADMIN_PAGES)} }}"


def _admin_filter_form(url: str) -> str:
    return f"""async (page) => {{
  await page.goto({json.dumps(url + "customer/")});
  await page.click("a.dropdown-toggle:has(+ .field-filters)");
  await page.click(".field-filters a.filter:nth-child(1)");
  await page.click("table.filters a.select2-choice");
  await page.click("#select2-drop li.select2-result:nth-child(3)");
  await page.fill("table.filters input.filter-val", "Norway");
  await Promise.all([page.waitForNavigation(), page.click("#filter_form button[type=submit]")]);
  {_in_page(_ADMIN_PAGES)}
}}"""


def _dash(url: str) -> str:
    return f"""async (page) => {{
  await page.waitForSelector(".dash-spreadsheet tbody tr:has(td.dash-cell)");
  {_in_page(_DASH_PAGES)}
}}"""


def _dash_filtered(url: str) -> str:
    return f"""async (page) => {{
  await page.goto({json.dumps(url)});
  const fruit = "th.dash-filter[data-dash-column=fruit] input";
  await page.fill(fruit, "berry");
  await page.press(fruit, "Enter");
  await page.click("th.dash-header[data-dash-column=quantity] .column-header--sort");
  // Filtered and sorted once every fruit shown is a berry and the quantities go up.
  await page.waitForFunction(() => {{
    const cells = (n) =>
      [...document.querySelectorAll(`td[data-dash-column=${{n}}]`)].map((c) => c.textContent);
    const q = cells("quantity").map(Number);
    return cells("fruit").every((f) => f.includes("berry")) && q.every((v, i) => i === 0 || q[i - 1] <= v);
  }});
  {_in_page(_DASH_PAGES)}
}}"""


def _grid(url: str) -> str:
    return f"""async (page) => {{
  await page.waitForSelector(".ag-grid-scrolling-container .ag-row");
  {_in_page(_GRID_ROWS)}
}}"""


def _fast_login(url: str) -> str:
    return f"""
  await page.goto({json.dumps(url + fast_tasks.LOGIN_PAGE.lstrip("/"))});
  await page.fill("input[name=name]", {json.dumps(fast_data.USER)});
  await page.fill("input[name=password]", {json.dumps(fast_data.PASSWORD)});
  await Promise.all([page.waitForNavigation(), page.click("form button[type=submit]")]);"""


def _fast_linked(url: str) -> str:
    body = _FAST_PAGES.replace("ROWS", json.dumps(fast_tasks.ROWS)).replace("READ", _FAST_RECORD)
    return f"async (page) => {{ {_in_page(body)} }}"


def _fast_orders(url: str) -> str:
    body = _FAST_PAGES.replace("ROWS", json.dumps(fast_tasks.ORDER_ROWS)).replace("READ", _FAST_ORDER)
    return f"async (page) => {{ {_fast_login(url)}\n  {_in_page(body)} }}"


def _fast_details(url: str) -> str:
    body = _FAST_DETAILS.replace("LIMIT", str(fast_tasks.DETAILS))
    return f"async (page) => {{ {_fast_login(url)}\n  {_in_page(body)} }}"


SCRIPTS = {
    tasks.ROUNDUP.name: _roundup,
    tasks.ADMIN_ALL.name: _admin,
    tasks.ADMIN_FILTERED.name: _admin,
    tasks.ADMIN_FILTER_UI.name: _admin_filter_form,
    tasks.DASH_ALL.name: _dash,
    tasks.DASH_FILTERED.name: _dash_filtered,
    tasks.AGGRID.name: _grid,
    fast_tasks.LINKED.name: _fast_linked,
    fast_tasks.LOGIN.name: _fast_orders,
    fast_tasks.DETAILS_TASK.name: _fast_details,
}


def setup(task: tasks.Task, url: str) -> list[tuple[str, dict[str, Any]]]:
    """The task's scene-setting calls in Playwright MCP's terms (navigations, waits for a selector)."""
    return [
        ("browser_navigate", {"url": args["url"]})
        if args["action"] == "navigate"
        else (
            "browser_run_code_unsafe",
            {"code": f"async (page) => {{ await page.waitForSelector({json.dumps(args['selector'])}); }}"},
        )
        for _, args in task.setup(url)
    ]


def call(task: tasks.Task, url: str) -> tuple[str, dict[str, Any]] | None:
    """The task's one Playwright MCP call, or None when it has no counterpart (markdown)."""
    script = SCRIPTS.get(task.name)
    return None if script is None else ("browser_run_code_unsafe", {"code": script(url)})


def result(text: str) -> Any:
    """The value a `browser_run_code_unsafe` call returned, from its text."""
    head = "### Result\n"
    start = text.index(head) + len(head)
    end = text.find("\n### ", start)
    return json.loads(text[start : end if end >= 0 else None])
