"""The pages the snapshot benchmark reads: the test fixtures and demo pages as they are, a generated
page with 1,000 interactive elements, and a counter button to click."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "pages"
DEMO = REPO / "host" / "tabpilot" / "demo" / "site"

# name in the served directory -> source file
COPIED = {
    "form.html": FIXTURES / "form.html",
    "shadow.html": FIXTURES / "shadow.html",
    "frame.html": FIXTURES / "frame.html",
    "login.html": FIXTURES / "login.html",
    "cards.html": FIXTURES / "scrape" / "cards.html",
    "rows.html": FIXTURES / "scrape" / "rows.html",
    "demo.html": DEMO / "index.html",
    "bench.html": REPO / "bench" / "page" / "index.html",
}
# Compared side by side with Playwright MCP (frame.html is shown inside shadow.html).
COMPARED = [
    "form.html",
    "shadow.html",
    "login.html",
    "cards.html",
    "rows.html",
    "demo.html",
    "bench.html",
    "many.html",
]
MANY = "many.html"
CLICK = "click.html"
ROWS = 250  # x 4 interactive elements = 1,000


def _many() -> str:
    rows = "\n".join(
        f"<tr><td><a href='/item/{i}'>Item {i}</a></td><td>{i * 7 % 100} in stock</td>"
        f"<td><input type='checkbox' aria-label='Pick {i}'></td>"
        f"<td><input name='qty{i}' aria-label='Quantity {i}' value='{i % 5}'></td>"
        f"<td><button type='button'>Add {i}</button></td></tr>"
        for i in range(ROWS)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Catalogue</title></head><body>"
        "<h1>Catalogue</h1><p>Every item with a link, a pick box, a quantity and a button.</p>"
        "<table><thead><tr><th>Item</th><th>Stock</th><th>Pick</th><th>Quantity</th><th></th></tr></thead>"
        f"<tbody>{rows}</tbody></table></body></html>"
    )


_CLICK_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Counter</title></head><body>"
    "<h1>Counter</h1>"
    "<button id='inc' onclick=\"this.dataset.n = (+this.dataset.n || 0) + 1\">Add one</button>"
    "</body></html>"
)


def write_pages(directory: Path) -> None:
    """Put every benchmark page into `directory`."""
    for name, source in COPIED.items():
        shutil.copyfile(source, directory / name)
    (directory / MANY).write_text(_many())
    (directory / CLICK).write_text(_CLICK_PAGE)
