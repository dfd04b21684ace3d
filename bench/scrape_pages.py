"""The pages and fields the scrape benchmark uses."""

from __future__ import annotations

from pathlib import Path

from tabpilot.wire.messages import FieldPlan

PAGES = 10
ROWS_PER_PAGE = 100
# The pages' server: this machine's, answering at once, and one answering 100 ms late (an intranet
# app on a good day); the engine's and the transport's share shrinks as the pages' own time grows.
SERVERS = {"local": 0, "100ms": 100}
CLEAR_LOADS = "sessionStorage.clear()"
READ_LOADS = (
    "return Object.keys(sessionStorage).filter(k => k.startsWith('load:')).map(k => +sessionStorage[k])"
)
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
# benchmark can tell the browser's time from TabPilot's. With ?auto the pages also click their own Next
# as soon as they have loaded: the browser going through the list by itself, with nobody reading it.
_RECORD_LOAD = """<script>
addEventListener('load', () => setTimeout(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  sessionStorage.setItem('load:' + location.pathname, String(nav.loadEventEnd - nav.startTime));
  if (!new URLSearchParams(location.search).has('auto')) return;
  const now = String(performance.timeOrigin + performance.now());
  if (!sessionStorage.getItem('chain:start')) sessionStorage.setItem('chain:start', now);
  const next = document.querySelector('a.next');
  if (next) next.click(); else sessionStorage.setItem('chain:end', now);
}));
</script>"""
READ_CHAIN = "return [sessionStorage.getItem('chain:start'), sessionStorage.getItem('chain:end')]"


_KEEP_QUERY = """<script>
for (const a of document.querySelectorAll('a.next')) a.search = location.search;
</script>"""


def list_url(page: int, delay_ms: int, auto: bool = False) -> str:
    """Page `page` of the list, from a server `delay_ms` late (`auto`: the pages click Next themselves)."""
    query = [*([f"delay_ms={delay_ms}"] if delay_ms else []), *(["auto=1"] if auto else [])]
    return f"list-{page}.html" + (f"?{'&'.join(query)}" if query else "")


def write_list_pages(directory: Path) -> None:
    """list-1.html ... list-N.html, 100 rows each, linked by a.next (to the same server's speed)."""
    for page in range(1, PAGES + 1):
        first = (page - 1) * ROWS_PER_PAGE
        rows = "\n".join(
            f'<tr><td class="id">{i}</td><td class="name">Name {i}</td>'
            f'<td class="email">user{i}@example.test</td>'
            f'<td class="amount">${i * 1.5:,.2f}</td><td><a href="/item/{i}">item {i}</a></td></tr>'
            for i in range(first, first + ROWS_PER_PAGE)
        )
        # The link keeps the query of the page it is on: a slow server stays slow for the whole list.
        nxt = f'<a class="next" href="list-{page + 1}.html">Next</a>' if page < PAGES else ""
        (directory / f"list-{page}.html").write_text(
            f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>List {page}</title><link rel="icon" href="data:,">
{_RECORD_LOAD}</head>
<body><table class="data"><tbody>
{rows}
</tbody></table>
<nav>{nxt}</nav>{_KEEP_QUERY}</body></html>
"""
        )
