"""Titles and URLs are results too: what a page put in its <title> or in a URL (a redirect's
`?api_key=sk-proj-…`, a `#access_token=…`) goes out scrubbed like any other text, on every answer and
in every file. A query or fragment value whose name is secret-looking (wire/secret_names.py) becomes
[REDACTED]; secret-shaped runs anywhere (wire/secret_patterns.py) too; so does a password in the URL's
user info. The engine keeps the real URLs for its own work (a next page's `?sig=` is needed to load
it): this is applied where values leave the host."""

from __future__ import annotations

import json
import re
from typing import Any, cast
from urllib.parse import unquote_plus

from ..wire import secret_urls
from ..wire.secret_names import SECRET_QUERY_NAME
from ..wire.secret_patterns import REDACTED, mask

_SECRET = re.compile(SECRET_QUERY_NAME, re.I)
_URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>]+")
# The keys whose string values are a URL or a title, wherever they sit in an answer.
URL_KEYS = frozenset({"url", "final_url", "pending_url", "nav_url", "start_url", "redirect_url"})
TITLE_KEYS = frozenset({"title"})
_SCRUBBED_KEYS = URL_KEYS | TITLE_KEYS | {"message", "detail"}
_PLAIN = (str, int, float, bool, type(None))
_RAW_PAIR = re.compile(
    rb'"(url|final_url|pending_url|nav_url|start_url|redirect_url|title|message|detail)":"((?:[^"\\]|\\.)*)"'
)


def _pairs(part: str) -> str:
    out: list[str] = []
    for item in part.split("&"):
        name, eq, value = item.partition("=")
        if eq and value.startswith("{{"):
            pass  # a recorded workflow's parameter: its value is supplied at replay, not stored
        elif eq and unquote_plus(value) == REDACTED:
            pass  # redacted already (the extension's network log writes it URL-encoded): kept as written
        elif eq and value and _SECRET.search(unquote_plus(name)):
            value = REDACTED
        elif eq and value:
            plain = unquote_plus(value)
            masked = mask(plain)
            value = masked if masked != plain else value
        out.append(f"{name}{eq}{value}")
    return "&".join(out)


def scrub_url(url: str) -> str:
    """`url` with secret query and fragment values, a user-info password and secret-shaped runs redacted."""
    if not url:
        return url
    if secret_urls.known(url):
        # A secret link's address: its query and fragment are its values (its path stays, as in the page).
        head, q, _ = url.partition("#")[0].partition("?")
        return f"{mask(head)}?{REDACTED}" if q or "#" in url else mask(head)
    head, hash_, fragment = url.partition("#")
    base, q, query = head.partition("?")
    scheme, sep, rest = base.partition("://")
    if sep:
        auth, at, hostpath = rest.partition("@")
        if at and "/" not in auth and ":" in auth:
            base = f"{scheme}://{auth.split(':', 1)[0]}:{REDACTED}@{hostpath}"
    out = mask(base)
    if q:
        out += "?" + _pairs(query)
    if hash_:
        out += "#" + (_pairs(fragment) if "=" in fragment else mask(fragment))
    return out


def scrub_text(text: str) -> str:
    """A title or a message: secret-shaped runs masked, and every URL in it scrubbed."""
    return mask(_URL_IN_TEXT.sub(lambda m: scrub_url(m.group(0)), text)) if text else text


def scrub_value(value: Any) -> Any:
    """A JSON value with every URL and title in it scrubbed (a copy where anything changed)."""
    if isinstance(value, dict):
        found = cast(dict[str, Any], value)
        if found.keys().isdisjoint(_SCRUBBED_KEYS) and all(isinstance(v, _PLAIN) for v in found.values()):
            return found  # a row of plain values under other names: nothing to scrub (the common case)
        out: dict[str, Any] = {}
        for k, v in found.items():
            if isinstance(v, str) and k in URL_KEYS:
                out[k] = scrub_url(v)
            elif isinstance(v, str) and (k in TITLE_KEYS or k in ("message", "detail")):
                out[k] = scrub_text(v)
            else:
                out[k] = scrub_value(v)
        return out
    if isinstance(value, list):
        return [scrub_value(v) for v in cast(list[Any], value)]
    return value


def _raw_pair(m: re.Match[bytes]) -> bytes:
    key, literal = m.group(1), m.group(2)
    text: str = json.loads(b'"' + literal + b'"')
    clean = scrub_url(text) if key.decode() in URL_KEYS else scrub_text(text)
    if clean == text:
        return m.group(0)
    return b'"' + key + b'":' + json.dumps(clean, ensure_ascii=False).encode()


def scrub_raw(raw: bytes) -> bytes:
    """The same on an answer's JSON text, without parsing all of it (answers can be megabytes)."""
    return _RAW_PAIR.sub(_raw_pair, raw)
