"""A Django admin change list: its paginator is page numbers only (`p.paginator` holding
`span.this-page` and links to the other pages, no "next" link). Zero knowledge: `suggest` proposes the
link after the current page's mark, and its call, sent unchanged, reads every row of every page.

The pages are Django 5.0's admin markup (change_list.html, pagination.html and its
`paginator_number`, the elided page range), rendered here from the corpus's customers and served at
Django's own URLs (`/admin/shop/customer/?p=2`) by the tests' page server."""

from __future__ import annotations

import html
import string
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp import Client

from tabpilot.demo.server import serve
from tests.fixtures.realapps import data
from tests.support import pages
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = 58
PER_PAGE = 5  # 12 pages: the pager elides the middle ("1 2 3 4 … 11 12")
LIST = "/admin/shop/customer/"
COLUMNS = ("code", "name", "country", "balance", "active")
TEMPLATE = string.Template((pages.PAGES / "django" / "change_list.html").read_text())


def page_range(number: int, num_pages: int, on_each_side: int = 3, on_ends: int = 2) -> list[int | str]:
    """Django's Paginator.get_elided_page_range."""
    if num_pages <= (on_each_side + on_ends) * 2:
        return list(range(1, num_pages + 1))
    out: list[int | str] = []
    if number > (1 + on_each_side + on_ends) + 1:
        out += [*range(1, on_ends + 1), "…", *range(number - on_each_side, number + 1)]
    else:
        out += range(1, number + 1)
    if number < (num_pages - on_each_side - on_ends) - 1:
        out += [*range(number + 1, number + on_each_side + 1), "…"]
        out += range(num_pages - on_ends + 1, num_pages + 1)
    else:
        out += range(number + 1, num_pages + 1)
    return out


def paginator_number(i: int | str, number: int, num_pages: int) -> str:
    if i == "…":
        return "… "
    if i == number:
        return f'<span class="this-page">{i}</span> '
    end = ' class="end"' if i == num_pages else ""
    return f'<a href="?p={i}"{end}>{i}</a> '


def change_list(number: int, customers: list[data.Customer], total: int, num_pages: int) -> str:
    head = "".join(
        f'<th scope="col" class="sortable column-{c}"><div class="text"><a href="?o={k}">{c.title()}</a>'
        '</div><div class="clear"></div></th>'
        for k, c in enumerate(COLUMNS, start=1)
    )
    rows = "".join(
        "<tr>"
        f'<td class="action-checkbox"><input type="checkbox" name="_selected_action" value="{c.id}" '
        f'class="action-select" aria-label="Select this object for an action - {c.code}"></td>'
        f'<th class="field-code"><a href="{LIST}{c.id}/change/">{c.code}</a></th>'
        f'<td class="field-name">{html.escape(c.name)}</td><td class="field-country">{c.country}</td>'
        f'<td class="field-balance">{c.balance:.2f}</td><td class="field-active">'
        f'<img src="/static/admin/img/icon-{"yes" if c.active else "no"}.svg" alt="{c.active}"></td>'
        "</tr>\n"
        for c in customers
    )
    pager = "".join(paginator_number(i, number, num_pages) for i in page_range(number, num_pages))
    filters = "".join(f'<li><a href="?country={c}">{c}</a></li>' for c in data.COUNTRIES)
    return TEMPLATE.substitute(
        list=LIST, head=head, rows=rows, pager=pager, total=total, count=len(customers), filters=filters
    )


class _DjangoUrls:
    """Django's list URL, `?p=N` picking the page (the static server would ignore the query)."""

    directory: str

    def guess_type(self, path: str) -> str:
        return "text/html; charset=utf-8"  # as Django sends it (its pages carry no meta charset)

    def translate_path(self, path: str) -> str:
        parts = urlsplit(path)
        if parts.path == LIST:
            number = int(parse_qs(parts.query).get("p", ["1"])[0])
            return str(Path(self.directory) / f"page-{number}.html")
        return super().translate_path(path)  # type: ignore[misc]


@pytest.fixture(scope="module")
def django_admin() -> Iterator[str]:
    customers = data.customers()[:ROWS]
    num_pages = -(-ROWS // PER_PAGE)
    with tempfile.TemporaryDirectory(prefix="tp-django-") as tmp:
        for n in range(1, num_pages + 1):
            chunk = customers[(n - 1) * PER_PAGE : n * PER_PAGE]
            (Path(tmp) / f"page-{n}.html").write_text(change_list(n, chunk, ROWS, num_pages))
        with serve(Path(tmp), wrap=lambda h: type("DjangoHandler", (_DjangoUrls, h), {})) as url:
            yield url + LIST


def expected() -> list[dict[str, Any]]:
    return [
        {"code": c.code, "name": c.name, "country": c.country, "balance": c.balance}
        for c in data.customers()[:ROWS]
    ]


@pytest.mark.parametrize("start", [1, 4, 12], ids=["first", "middle", "last"])
async def test_suggest_proposes_the_link_after_this_page(
    client: Client, django_admin: str, start: int
) -> None:
    await call(client, "interact", action="navigate", url=f"{django_admin}?p={start}")
    proposal = await scrape(client, operation="suggest")
    best = proposal["candidates"][0]
    assert best["selector"] == "#result_list > tbody > tr", best
    assert best["paging"]["kind"] == "numbered", best
    proposed = proposal["call"]
    if start > 1:
        # Shown from a later page, the list is read from its first: the pager's "1" link opens it.
        assert proposed["operation"] == "workflow", proposed
        opening, extract = proposed["steps"]
        assert opening == {"type": "navigate", "url": f"{django_admin}?p=1"}, opening
        options = extract["paginate"]
        schema = extract["schema"]
    else:
        options = proposed["options"]["paginate"]
        schema = proposed["schema"]
    assert options["next_selector"] == "p.paginator > span.this-page + a", options
    assert options["max_pages"] >= 12 and set(expected()[0]) <= set(schema)
    out = await call(client, "interact", **proposed)
    assert out["status"] == "complete", out["metadata"]
    # The pager itself says where the list ends (on the last page, this-page is its last number and no
    # link follows it).
    assert out["metadata"]["complete_because"] == "last_numbered_page"
    got = [{k: r[k] for k in expected()[0]} for r in out["data"]]
    assert got == expected()
