"""A secret next link's address, and one made from it, are written with their query redacted."""

from __future__ import annotations

import msgspec

from tabpilot.engine import urlscrub
from tabpilot.wire.replies.base import decode_reply
from tabpilot.wire.replies.reading import NextTarget


def test_a_secret_links_address_and_one_made_from_it_are_scrubbed() -> None:
    url = "http://127.0.0.1:9/list?page=2&cursor=OPAQUECURSOR7#top"
    plain = "http://127.0.0.1:9/list?page=2&cursor=PLAINCURSOR8"
    assert urlscrub.scrub_url(url) == url  # nothing about it says secret, until the page agent does
    decode_reply(NextTarget, msgspec.json.decode(f'{{"url": "{url}", "sensitive": true}}'))
    decode_reply(NextTarget, msgspec.json.decode(f'{{"url": "{plain}"}}'))
    assert urlscrub.scrub_url(url) == f"http://127.0.0.1:9/list?{urlscrub.REDACTED}"
    made = "http://127.0.0.1:9/list?page=3&cursor=OPAQUECURSOR7"
    assert urlscrub.scrub_url(made) == f"http://127.0.0.1:9/list?{urlscrub.REDACTED}"
    assert urlscrub.scrub_url(plain) == plain
    assert urlscrub.scrub_url("http://127.0.0.1:9/list?page=2") == "http://127.0.0.1:9/list?page=2"
