"""URL patterns: which pages share a layout, so a strategy learnt on one page can be rerun on the others.

`derive(url)` keeps what tells layouts apart and wildcards what only tells records apart:

- scheme and host (with a non-default port) are kept, lowercased; user info and the fragment go.
- path segments that are ids become `*`: numbers, UUIDs, long hex ids, and slugs that end in an id
  (`blue-shoe-12345`, `item_9f8e7d6c5b`). A trailing `page/<n>` (or `p/<n>`) is dropped, so
  `/blog` and `/blog/page/7` are the same listing.
- query: page-position keys (`page`, `p`, `offset`, `start`, `cursor`, ...) and tracking keys
  (`utm_*`, `gclid`, `fbclid`, ...) are dropped, so page 1 without `?page=` and page 7 agree. The
  other keys are kept, sorted. Their values are kept too (a `view=grid` or a filter can change the
  markup, and a pattern that is too narrow only costs a cache miss while one too broad reruns a
  strategy on the wrong layout), except free-text search values (`q`, `query`, `search`, ...) and
  id-like values, which become `*`.

Patterns read like URLs: `https://shop.example/products/*?category=shoes&q=*`. Segments and values
stay percent-encoded as in the URL, and a literal `*` is written `%2A`, so a pattern parses back
unambiguously. `matches(pattern, url)`: same scheme and host, same number of path segments, each
equal or `*`, and the same query keys with equal values or `*`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..wire.secret_names import SECRET_QUERY_NAME

WILD = "*"
_PAGE_KEYS = frozenset(
    [
        "page",
        "p",
        "pg",
        "pn",
        "paged",
        "pagenum",
        "pagenumber",
        "page_number",
        "pageno",
        "pageindex",
        "page_index",
        "offset",
        "start",
        "skip",
        "from",
        "cursor",
        "after",
        "before",
        "startindex",
        "start_index",
        "pagetoken",
        "page_token",
        "continuation",
    ]
)
_TRACKING = re.compile(r"^(utm_.*|gclid|fbclid|msclkid|mc_[a-z]+|_ga|_gl|ref|ref_src|igshid|yclid)$")
_SEARCH_KEYS = frozenset(["q", "query", "search", "s", "keyword", "keywords", "term", "terms", "k", "text"])
_NUMBER = re.compile(r"^\d+$")
_SECRET_KEY = re.compile(SECRET_QUERY_NAME, re.I)
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
_HEX = re.compile(r"^(?=[0-9a-f]*\d)[0-9a-f]{8,}$", re.I)
# A slug whose last part is an id: at least one letter before it, so `2026-01-28` stays a date.
_SLUG_ID = re.compile(r"^(?=.*[a-z]).+[-_.](\d+|(?=[0-9a-f]*\d)[0-9a-f]{8,})$", re.I)
_LONG_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}$")  # opaque tokens and base64-ish ids
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_id(segment: str) -> bool:
    """True for a path segment or value that names one record rather than a kind of page."""
    return bool(
        _NUMBER.match(segment)
        or _UUID.match(segment)
        or _HEX.match(segment)
        or _SLUG_ID.match(segment)
        or (_LONG_TOKEN.match(segment) and any(c.isdigit() for c in segment))
    )


def _origin(url: str) -> tuple[str, str, str, str]:
    """(scheme, host[:port], path, query) of a URL, normalised; the fragment and user info go."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: keep the netloc as written
        port = None
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return scheme, host, parts.path, parts.query


def _segments(path: str) -> list[str]:
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 2 and segs[-2].lower() in ("page", "p") and _NUMBER.match(segs[-1]):
        segs = segs[:-2]
    return segs


def _query(query: str) -> list[tuple[str, str]]:
    """The kept (key, value) pairs, sorted; page-position and tracking keys are dropped."""
    pairs: list[tuple[str, str]] = []
    for item in query.split("&"):
        if not item:
            continue
        key, _, value = item.partition("=")
        low = key.lower()
        if low in _PAGE_KEYS or _TRACKING.match(low):
            continue
        pairs.append((key, value))
    return sorted(pairs)


def _literal(text: str) -> str:
    return text.replace(WILD, "%2A")


def derive(url: str) -> str:
    """The pattern of the pages that look like this one (see the module docstring)."""
    scheme, host, path, query = _origin(url)
    segs = [WILD if is_id(s) else _literal(s) for s in _segments(path)]
    out = f"{scheme}://{host}/{'/'.join(segs)}"
    pairs: list[str] = []
    for key, value in _query(query):
        # A secret-named value (a session, a signature) is never kept: it would sit in the cache on disk.
        wild = key.lower() in _SEARCH_KEYS or is_id(value) or _SECRET_KEY.search(key) is not None
        pairs.append(f"{_literal(key)}={WILD if wild else _literal(value)}")
    return out + ("?" + "&".join(pairs) if pairs else "")


def host_of_pattern(pattern: str) -> str:
    """The host (with port) a pattern is for."""
    return _origin(pattern)[1]


def matches(pattern: str, url: str) -> bool:
    """True when `url` is one of the pages `pattern` describes."""
    p_scheme, p_host, p_path, p_query = _origin(pattern)
    scheme, host, path, query = _origin(url)
    if (p_scheme, p_host) != (scheme, host):
        return False
    want, got = [s for s in p_path.split("/") if s], _segments(path)
    if len(want) != len(got):
        return False
    if any(w != WILD and w != _literal(g) for w, g in zip(want, got, strict=True)):
        return False
    want_q = [tuple(item.partition("=")[::2]) for item in p_query.split("&") if item]
    got_q = _query(query)
    if [k for k, _ in want_q] != [_literal(k) for k, _ in got_q]:
        return False
    return all(w == WILD or w == _literal(g) for (_, w), (_, g) in zip(want_q, got_q, strict=True))


def specificity(pattern: str) -> int:
    """How many literal parts a pattern has: the most specific matching strategy wins."""
    _, _, path, query = _origin(pattern)
    parts = [s for s in path.split("/") if s] + [i.partition("=")[2] for i in query.split("&") if i]
    return sum(1 for p in parts if p != WILD)
