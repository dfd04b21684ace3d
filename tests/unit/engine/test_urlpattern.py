"""URL patterns: ids and page positions become wildcards, layouts stay apart, hosts never mix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabpilot.engine.urlpattern import derive, is_id, matches, specificity


@pytest.mark.parametrize(
    ("url", "pattern"),
    [
        (
            "https://Shop.example/products?page=2&category=shoes",
            "https://shop.example/products?category=shoes",
        ),
        ("https://shop.example/products/blue-shoe-12345", "https://shop.example/products/*"),
        ("https://shop.example/items/item_9f8e7d6c5b4a", "https://shop.example/items/*"),
        (
            "https://shop.example/p/550e8400-e29b-41d4-a716-446655440000/reviews?sort=new",
            "https://shop.example/p/*/reviews?sort=new",
        ),
        ("https://blog.example/blog/page/7/", "https://blog.example/blog"),
        ("https://x.example/search?q=laptops&p=3&utm_source=mail#top", "https://x.example/search?q=*"),
        ("https://x.example/orders?id=12345&view=grid", "https://x.example/orders?id=*&view=grid"),
        ("http://127.0.0.1:8123/cache/list.html?offset=40", "http://127.0.0.1:8123/cache/list.html"),
        ("https://x.example:443/a", "https://x.example/a"),
        ("https://x.example/a*b?x=*", "https://x.example/a%2Ab?x=%2A"),
    ],
)
def test_derive(url: str, pattern: str) -> None:
    assert derive(url) == pattern
    assert matches(pattern, url)


def test_what_is_an_id() -> None:
    assert all(map(is_id, ["42", "deadbeef42", "blue-shoe-12345", "550e8400e29b41d4a716446655440000"]))
    assert not any(map(is_id, ["products", "2026-01-28", "page", "blue-shoes", "abcdefab"]))


def test_matching_rules() -> None:
    p = derive("https://shop.example/products/123?category=shoes")
    assert matches(p, "https://shop.example/products/987?category=shoes&page=4")
    assert not matches(p, "https://shop.example/products/987?category=hats")  # a filter: maybe another layout
    assert not matches(p, "https://shop.example/products/987")  # a key missing
    assert not matches(p, "https://shop.example/products/987/reviews?category=shoes")  # deeper
    assert not matches(p, "http://shop.example/products/987?category=shoes")  # another scheme
    assert not matches(p, "https://other.example/products/987?category=shoes")
    assert specificity("https://a.example/x/*/y?k=v&q=*") == 3


_segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.*~", min_size=1, max_size=12).filter(
    lambda s: s not in (".", "..")
)
_host = st.from_regex(r"\A[a-z][a-z0-9]{0,10}\.(com|example|org)\Z")
_key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
_value = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-*", max_size=10)


@st.composite
def urls(draw: st.DrawFn, host: str | None = None) -> str:
    h = host or draw(_host)
    path = "/".join(draw(st.lists(_segment, max_size=5)))
    query = "&".join(f"{k}={v}" for k, v in draw(st.lists(st.tuples(_key, _value), max_size=4)))
    return f"https://{h}/{path}" + (f"?{query}" if query else "")


@given(urls())
def test_a_url_matches_its_own_pattern(url: str) -> None:
    assert matches(derive(url), url)


@given(urls(), st.integers(1, 10_000), st.sampled_from(["page", "p", "offset", "start", "cursor"]))
def test_every_page_of_a_listing_has_the_same_pattern(url: str, n: int, key: str) -> None:
    sep = "&" if "?" in url else "?"
    first, later = f"{url}{sep}{key}=1", f"{url}{sep}{key}={n}"
    assert derive(first) == derive(later) == derive(url)
    assert matches(derive(first), later)


@given(urls(), _host, _host)
def test_different_hosts_never_match(url: str, a: str, b: str) -> None:
    if a == b:
        return
    on_a = url.replace(url.split("/")[2], a, 1)
    on_b = url.replace(url.split("/")[2], b, 1)
    assert not matches(derive(on_a), on_b)
