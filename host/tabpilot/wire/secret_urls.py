"""Addresses the page agent found behind a secret link (a next link marked by the redaction list): the
engine still follows them, but their query and fragment are the link's values, secret like any other
value of a secret element, so wherever a URL leaves the host (answers, files) it is written with them
redacted. An address made from one (a numbered page's, the same query with another page number) keeps
its values, so a URL that holds one of them counts too. Kept for the process's life, the newest few
thousand."""

from __future__ import annotations

from collections import OrderedDict

_KEPT = 4_000
_MIN_VALUE = 4  # shorter values (a page number) are no secret of their own
_urls: OrderedDict[str, None] = OrderedDict()
_pairs: OrderedDict[str, None] = OrderedDict()


def _bare(url: str) -> str:
    return url.partition("#")[0]


def _pairs_of(url: str) -> list[str]:
    query = _bare(url).partition("?")[2]
    return [p for p in query.split("&") if len(p.partition("=")[2]) >= _MIN_VALUE]


def _keep(store: OrderedDict[str, None], key: str) -> None:
    store[key] = None
    store.move_to_end(key)
    while len(store) > _KEPT:
        store.popitem(last=False)


def remember(url: str) -> None:
    """`url` is the address of a secret link."""
    _keep(_urls, _bare(url))
    for pair in _pairs_of(url):
        _keep(_pairs, pair)


def known(url: str) -> bool:
    """Whether `url` is the address of a secret link, or holds one of its query's values."""
    return _bare(url) in _urls or any(p in _pairs for p in _pairs_of(url))
