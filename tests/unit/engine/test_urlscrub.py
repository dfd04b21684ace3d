"""Titles and URLs scrubbed where values leave the host (engine/urlscrub.py)."""

from __future__ import annotations

from tabpilot.engine.urlscrub import scrub_raw, scrub_url, scrub_value

KEY = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
AWS = "AKIAQWERTYUIOPASDFGH"


def test_secret_query_and_fragment_values_user_info_and_shaped_runs() -> None:
    assert scrub_url(f"https://a.test/p?api_key={KEY}&page=2&q=shoes") == (
        "https://a.test/p?api_key=[REDACTED]&page=2&q=shoes"
    )
    assert scrub_url("https://a.test/cb#access_token=abc&state=x") == (
        "https://a.test/cb#access_token=[REDACTED]&state=x"
    )
    assert scrub_url(f"https://a.test/{AWS}/x?note={KEY}") == "https://a.test/[REDACTED]/x?note=[REDACTED]"
    assert scrub_url("https://bob:hunter2@a.test/") == "https://bob:[REDACTED]@a.test/"
    assert scrub_url("https://a.test/list?sig=abc&page=3") == "https://a.test/list?sig=[REDACTED]&page=3"
    assert scrub_url("https://a.test/?token={{params.token}}") == "https://a.test/?token={{params.token}}"
    assert scrub_url("https://a.test/plain?x=1") == "https://a.test/plain?x=1"
    # Scrubbing twice changes nothing: a value redacted and URL-encoded by the extension stays as it is.
    once = "https://a.test/?user=me&password=%5BREDACTED%5D&q=ok"
    assert scrub_url(once) == once
    assert scrub_url(scrub_url(f"https://a.test/p?api_key={KEY}")) == "https://a.test/p?api_key=[REDACTED]"


def test_values_and_raw_json_alike() -> None:
    value = {
        "tabs": [{"url": "https://a.test/?session=s1", "title": f"Keys {AWS}"}],
        "message": "loading https://a.test/?token=t1 failed",
        "rows": [{"name": "keep me", "link": "https://a.test/?token=kept-in-data"}],
    }
    clean = scrub_value(value)
    assert clean["tabs"] == [{"url": "https://a.test/?session=[REDACTED]", "title": "Keys [REDACTED]"}]
    assert clean["message"] == "loading https://a.test/?token=[REDACTED] failed"
    assert clean["rows"] == value["rows"]
    raw = b'{"url":"https://a.test/?session=s1","title":"Keys ' + AWS.encode() + b'","n":1}'
    assert scrub_raw(raw) == b'{"url":"https://a.test/?session=[REDACTED]","title":"Keys [REDACTED]","n":1}'
