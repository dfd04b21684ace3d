"""The pages and fields the scrape benchmark uses."""

from __future__ import annotations

from pathlib import Path

from tabpilot.wire.messages import FieldPlan

PAGES = 10
ROWS_PER_PAGE = 100
# The same five fields, as the agent writes them and as the engine compiles them.
SCHEMA = {
    "id": "td.id | number",
    "name": "td.name",
    "email": "td.email",
    "amount": "td.amount | number",
    "link": "a | url",
}
FIELDS = [
    FieldPlan(name="id", selector="td.id"),
    FieldPlan(name="name", selector="td.name"),
    FieldPlan(name="email", selector="td.email"),
    FieldPlan(name="amount", selector="td.amount"),
    FieldPlan(name="link", selector="a", take="url"),
]

# Each page writes down its own load time (navigation start to the end of its load event), so the
# benchmark can tell the browser's time from TabPilot's.
_RECORD_LOAD = """<script>
addEventListener('load', () => setTimeout(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  sessionStorage.setItem('load:' + location.pathname, String(nav.loadEventEnd - nav.startTime));
}));
</script>"""


def write_list_pages(directory: Path) -> None:
    """list-1.html ... list-N.html, 100 rows each, linked by a.next."""
    for page in range(1, PAGES + 1):
        first = (page - 1) * ROWS_PER_PAGE
        rows = "\n".join(
            f'<tr><td class="id">{i}</td><td class="name">Name {i}</td>'
            f'<td class="email">user{i}@example.test</td>'
            f'<td class="amount">${i * 1.5:,.2f}</td><td><a href="/item/{i}">item {i}</a></td></tr>'
            for i in range(first, first + ROWS_PER_PAGE)
        )
        nxt = f'<a class="next" href="list-{page + 1}.html">Next</a>' if page < PAGES else ""
        (directory / f"list-{page}.html").write_text(
            f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>List {page}</title><link rel="icon" href="data:,">
{_RECORD_LOAD}</head>
<body><table class="data"><tbody>
{rows}
</tbody></table>
<nav>{nxt}</nav></body></html>
"""
        )
