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


def test_a_row_of_plain_values_is_passed_as_it_is_and_anything_nested_or_named_is_still_scrubbed() -> None:
    plain = {"id": 7, "name": "keep me", "price": 1.5, "ok": True, "note": None}
    assert scrub_value(plain) is plain  # no copy of a row with nothing to scrub
    rows = [
        plain,
        {"id": 8, "url": "https://a.test/?session=s2"},
        {"id": 9, "more": {"final_url": "https://a.test/?token=t3"}},
        {"id": 10, "list": [{"title": f"Keys {AWS}"}]},
    ]
    assert scrub_value(rows) == [
        plain,
        {"id": 8, "url": "https://a.test/?session=[REDACTED]"},
        {"id": 9, "more": {"final_url": "https://a.test/?token=[REDACTED]"}},
        {"id": 10, "list": [{"title": "Keys [REDACTED]"}]},
    ]
