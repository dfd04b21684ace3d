"""The demo site's task for the side-by-side run: sign in, read the backlog's three linked pages, then the
sprint board that its Next button redraws in place (what `tabpilot demo` records), as TabPilot's one
call and as an expert's one Playwright MCP script, with the ground truth read from the site's files."""

from __future__ import annotations

import json
import re
from typing import Any

from tabpilot.demo import workflow
from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER, SITE

NAME = "demo site: log in, 3 linked backlog pages, then 3 in-place sprint pages"
_FIELDS = ("key", "summary", "status", "assignee", "points")
_BACKLOG_ROW = re.compile(
    r'<tr><td class="key">(.*?)</td><td class="summary">(.*?)</td><td class="status">(.*?)</td>'
    r'<td class="assignee">(.*?)</td><td class="points">(\d+) pts</td></tr>'
)
_SPRINT_ROW = re.compile(r"\['(ACME-\d+)', '(.*?)', '(.*?)', '(.*?)', (\d+)\]")

# Reads the backlog's rows from `doc` and fetches its next page; then clicks through the board.
_SCRIPT = """async (page) => {
  await page.goto(%(login)s);
  await page.fill("input[name=username]", %(user)s);
  await page.fill("input[name=password]", %(password)s);
  await Promise.all([page.waitForNavigation(), page.click("form.login button[type=submit]")]);
  const backlog = await page.evaluate(async () => {
    const rows = [];
    let doc = document;
    for (;;) {
      for (const tr of doc.querySelectorAll("table.backlog tbody tr")) {
        const c = (n) => tr.querySelector("td." + n).textContent.trim();
        rows.push({key: c("key"), summary: c("summary"), status: c("status"), assignee: c("assignee"),
                   points: parseFloat(c("points"))});
      }
      const next = doc.querySelector("a.next[href]");
      if (!next) return rows;
      doc = new DOMParser().parseFromString(await (await fetch(next.href)).text(), "text/html");
    }
  });
  await page.goto(%(sprint)s);
  const sprint = await page.evaluate(async () => {
    const rows = [];
    const next = document.getElementById("next");
    for (;;) {
      for (const tr of document.querySelectorAll("table.sprint tbody tr")) {
        const c = (n) => tr.querySelector("td." + n).textContent.trim();
        rows.push({key: c("key"), summary: c("summary"), status: c("status"), assignee: c("assignee"),
                   points: Number(c("points"))});
      }
      if (next.disabled) return rows;
      next.click();  // the board redraws synchronously in its click handler
    }
  });
  return [...backlog, ...sprint];
}"""


def expected() -> list[dict[str, Any]]:
    """The rows as the site's files hold them: the backlog pages in order, then the board's data."""
    rows: list[tuple[str, ...]] = []
    for n in (1, 2, 3):
        rows += _BACKLOG_ROW.findall((SITE / "private" / f"backlog-{n}.html").read_text())
    rows += _SPRINT_ROW.findall((SITE / "private" / "sprint.html").read_text())
    return [{**dict(zip(_FIELDS, r, strict=True)), "points": int(r[4])} for r in rows]


def setup(url: str) -> list[tuple[str, dict[str, Any]]]:
    """Signed out first, so that every run goes through the login form (TabPilot's terms)."""
    return [("interact", {"action": "navigate", "url": f"{url}/logout"})]


def peer_setup(url: str) -> list[tuple[str, dict[str, Any]]]:
    """The same in Playwright MCP's terms."""
    return [("browser_navigate", {"url": f"{url}/logout"})]


def call(url: str) -> tuple[str, dict[str, Any]]:
    """TabPilot's one call: the demo's recorded workflow, run directly."""
    args = {"action": "scrape", "operation": "workflow", "steps": workflow(url)}
    return "interact", {**args, "params": {"password": DEMO_PASSWORD}}


def peer_call(url: str) -> tuple[str, dict[str, Any]]:
    """Playwright MCP's one call: the expert's script."""
    values = {
        "login": f"{url}/login.html?next=/private/backlog-1.html",
        "user": DEMO_USER,
        "password": DEMO_PASSWORD,
        "sprint": f"{url}/private/sprint.html",
    }
    return "browser_run_code_unsafe", {"code": _SCRIPT % {k: json.dumps(v) for k, v in values.items()}}
