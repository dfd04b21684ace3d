"""The page side of scraping in real Chromium, through the host's socket: extract and count on fixture
pages (links, images, numbers, form values, shadow DOM, secrets, bad selectors, big results)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.host import call, call_error, field, host_pool

pytestmark = pytest.mark.anyio

SECRETS = ["pw-attr-S3CRET-1", "tok-S3CRET-2", "note-S3CRET-3", "priv-S3CRET-4", "typed-S3CRET-5", "S3CRET"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with pages.serve() as url:
        yield f"{url}/scrape"


async def _open(pool: BrowserPool, url: str) -> int:
    nav = await call(pool, m.Navigate(id=0, url=url))
    return nav["tab_id"]


async def test_cards_links_images_numbers_lists_and_form_values(
    pilot_on: None, env: dict[str, str], base: str
) -> None:
    origin = base.rsplit("/", 1)[0]
    async with host_pool(env) as pool:
        await _open(pool, f"{base}/cards.html")
        fields = [
            field("title", "a.title"),
            field("link", "a.title", "url"),
            field("image", "img", "url"),
            field("price", ".price"),
            field("tags", ".tags li", all=True),
            field("sku", "", "attr", "data-sku"),
            field("qty", "input.qty", "attr", "value"),
            field("missing", ":scope .missing", "attr", "data-none"),
            field("title_html", ".title", "html"),
        ]
        out = await call(pool, m.Extract(id=0, selector="article.card", fields=fields))
        assert set(out) == {"rows", "count", "warnings", "url", "type"}
        assert out["count"] == 4 and out["url"] == f"{base}/cards.html"
        alpha, beta, gamma, delta = out["rows"]
        assert alpha == [
            "Alpha widget",
            f"{origin}/products/alpha.html",
            f"{base}/img/alpha.png",
            "$1,234.50",
            ["new", "blue"],
            "A-1",
            "10",  # the value a person typed, not the attribute the HTML came with
            None,
            alpha[8],
        ]
        assert "<b>" not in alpha[8] and "Alpha" in alpha[8]
        assert beta[:5] == [
            "Beta gadget",
            f"{base}/beta.html?x=1#top",
            "http://cdn.example.test/beta.png",
            "-3",
            ["sale"],
        ]
        assert beta[8] == "Beta <b>gadget</b>"
        assert gamma[1:5] == ["https://example.test/gamma", None, "€12", []]
        # A hidden row is still a row; its missing fields are null.
        assert delta[0] == "Delta" and delta[3] is None
        assert [w["field"] for w in out["warnings"]] == ["missing"]

        limited = await call(pool, m.Extract(id=0, selector="article.card", fields=fields[:1], limit=2))
        assert limited["rows"] == [["Alpha widget"], ["Beta gadget"]] and limited["count"] == 4

        counted = await call(pool, m.Count(id=0, selector="article.card"))
        assert counted == {"count": 4, "visible": 3}

        # Custom elements: fields are looked up in each row's open shadow root.
        shadow = await call(
            pool,
            m.Extract(id=0, selector="tp-item", fields=[field("label", ".label"), field("href", "a", "url")]),
        )
        assert shadow["rows"] == [["first", f"{origin}/items/first"], ["second", f"{origin}/items/second"]]


async def test_no_match_is_empty_and_bad_selectors_are_told_apart(
    pilot_on: None, env: dict[str, str], base: str
) -> None:
    async with host_pool(env) as pool:
        await _open(pool, f"{base}/cards.html")
        none = await call(pool, m.Extract(id=0, selector="table.nothing tr", fields=[field("x", "td")]))
        assert none == {
            "rows": [],
            "count": 0,
            "warnings": [],
            "url": f"{base}/cards.html",
            "type": "text/html",
        }

        bad = await call_error(pool, m.Extract(id=0, selector="article[", fields=[field("x", "a")]))
        assert bad.code == ErrorCode.INVALID_SELECTOR
        assert (await call_error(pool, m.Count(id=0, selector="::nope("))).code == ErrorCode.INVALID_SELECTOR

        fields = [field("title", "a.title"), field("broken", "span[[", "text")]
        partial = await call(pool, m.Extract(id=0, selector="article.card", fields=fields, limit=3))
        assert [r[0] for r in partial["rows"]] == ["Alpha widget", "Beta gadget", "Gamma"]
        assert [r[1] for r in partial["rows"]] == [None, None, None]
        [warning] = partial["warnings"]
        assert warning["field"] == "broken" and "span[[" in warning["message"]


async def test_secrets_never_leave_the_page(pilot_on: None, env: dict[str, str], base: str) -> None:
    async with host_pool(env) as pool:
        await _open(pool, f"{base}/secrets.html")
        every_way = [
            field("text", ""),
            field("html", "", "html"),
            field("value", "input", "attr", "value"),
            field("value_attr_text", "input", "text"),
            field("title", "[title]", "attr", "title"),
            field("inner", "span, b", "text", all=True),
            field("inner_html", "span", "html", all=True),
        ]
        out = await call(pool, m.Extract(id=0, selector="form .row", fields=every_way))
        text = json.dumps(out)
        for secret in SECRETS:
            assert secret not in text
        rows = out["rows"]
        assert rows[0][0] == "User" and rows[0][2] == "alice"
        assert rows[1][2] == "[REDACTED]" and rows[1][3] == "[REDACTED]"
        assert rows[2][0] == "API key [REDACTED]" and rows[2][4] == "[REDACTED]"
        assert rows[3][5] == ["[REDACTED]"] and rows[4][5] == ["[REDACTED]", "[REDACTED]"]
        assert rows[5][0] == "Plan Pro" and rows[5][5] == ["Pro"]

        # The whole form at once, as one row: html and text of the container are scrubbed too.
        whole = await call(
            pool, m.Extract(id=0, selector="form", fields=[field("t", ""), field("h", "", "html")])
        )
        assert "Plan Pro" in whole["rows"][0][0]
        for secret in SECRETS:
            assert secret not in json.dumps(whole)


@pytest.mark.parametrize("n", [0, 1, 5000])
async def test_row_counts_round_trip_exactly(pilot_on: None, env: dict[str, str], base: str, n: int) -> None:
    async with host_pool(env) as pool:
        await _open(pool, f"{base}/rows.html?n={n}")
        fields = [
            field("id", "td.id"),
            field("name", "td.name"),
            field("email", "td.email"),
            field("amount", "td.amount"),
            field("link", "a", "url"),
        ]
        out = await call(pool, m.Extract(id=0, selector="table.data tbody tr", fields=fields))
        assert out["count"] == n and len(out["rows"]) == n
        origin = base.rsplit("/", 1)[0]
        for i in {0, n // 2, n - 1} if n else set[int]():
            assert out["rows"][i] == [
                str(i),
                f"Name {i}",
                f"user{i}@example.test",
                f"{i * 1.5:.2f}",
                f"{origin}/item/{i}",
            ]


async def test_results_over_a_megabyte_arrive_whole(pilot_on: None, env: dict[str, str], base: str) -> None:
    # ~3 MB of JSON: the extension sends it to the host in chunks, the host hands it on unparsed.
    async with host_pool(env) as pool:
        await _open(pool, f"{base}/rows.html?n=3000&pad=1000")
        out = await call(
            pool, m.Extract(id=0, selector="tbody tr", fields=[field("id", ".id"), field("name", ".name")])
        )
        assert len(json.dumps(out)) > 3_000_000
        assert out["rows"][2999] == ["2999", "Name 2999" + "x" * 1000]
