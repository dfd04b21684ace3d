"""Fetch or render: one rule for paging and follow."""

from __future__ import annotations

from tabpilot.engine.paging.policy import Copy, mismatch
from tabpilot.wire.errors import ErrorCode, TabPilotError

ROWS = [["a", 1], ["b", 2]]


def test_the_same_rows_landing_where_the_tab_is_with_the_same_next_link_are_fetched() -> None:
    rendered = Copy(ROWS, "https://x.example/list?page=1", "https://x.example/list?page=2")
    assert (
        mismatch(
            Copy(ROWS, "https://x.example/list?page=1#top", "https://x.example/list?page=2"),
            rendered,
            "page 1",
        )
        is None
    )
    assert mismatch(Copy(ROWS), Copy(ROWS), "the first detail page") is None


def test_anything_else_is_rendered_and_says_why() -> None:
    rendered = Copy(ROWS, "https://x.example/list", "https://x.example/list?page=2")
    other = {
        "failed": TabPilotError(ErrorCode.UNKNOWN_COMMAND, "no"),
        "redirected": Copy(ROWS, "https://x.example/login", "https://x.example/list?page=2"),
        "other rows": Copy(ROWS[:1], "https://x.example/list", "https://x.example/list?page=2"),
        "next link": Copy(ROWS, "https://x.example/list", "https://x.example/list?page=3"),
        "waits for": Copy(ROWS, "https://x.example/list", "https://x.example/list?page=2", ready=False),
    }
    why = {k: mismatch(v, rendered, "page 1") for k, v in other.items()}
    assert all(w is not None for w in why.values()), why
    assert "unknown_command" in str(why["failed"]) and "other rows" in str(why["other rows"])
