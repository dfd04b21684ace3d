"""Progress of a running scrape: pages and rows, and the total and ETA only when the end is known."""

from __future__ import annotations

from tabpilot.engine import eta
from tabpilot.engine.context import RunState


def _state(pages: int, rows: int, total: tuple[str, int, int] | None, started: float = 100.0) -> RunState:
    state = RunState(steps_total=1, pages=pages, rows=rows, started=started)
    if total is not None:
        state.total_of = lambda: total
    return state


def test_no_total_no_eta() -> None:
    seen = eta.measure(_state(7, 700, None), now=110.0)
    assert seen == {"pages": 7, "rows": 700}
    assert eta.words(seen) == "7 pages, 700 rows"


def test_a_known_last_page_gives_the_time_left_at_this_run_s_pace() -> None:
    # 10 pages in 20 s: 2 s a page, 40 pages to go.
    seen = eta.measure(_state(10, 1_000, ("last_numbered_page", 50, 10)), now=120.0)
    assert seen == {
        "pages": 10,
        "rows": 1_000,
        "pages_total": 50,
        "total_from": "last_numbered_page",
        "eta_s": 80.0,
    }
    assert eta.words(seen) == "page 10 of 50, 1,000 rows, about 1 min 20 s left"


def test_max_pages_is_a_bound_and_said_so() -> None:
    seen = eta.measure(_state(500, 50_000, ("max_pages", 1_000, 500)), now=150.0)
    assert seen["pages_total"] == 1_000 and seen["eta_s"] == 50.0
    assert eta.words(seen) == "page 500 of at most 1,000, 50,000 rows, up to about 50 s left"


def test_a_resumed_run_times_only_the_pages_it_read_itself() -> None:
    # 500 pages came from the journal; this process read 100 in 10 s.
    seen = eta.measure(_state(600, 60_000, ("max_pages", 1_000, 600)), base_pages=500, now=110.0)
    assert seen["eta_s"] == 40.0


def test_no_eta_before_two_pages_and_none_left_at_the_end() -> None:
    assert "eta_s" not in eta.measure(_state(1, 100, ("max_pages", 10, 1)), now=101.0)
    done = eta.measure(_state(10, 1_000, ("max_pages", 10, 10)), now=101.0)
    assert done["eta_s"] == 0.0 and "left" not in eta.words(done)


def test_durations_read_as_a_person_says_them() -> None:
    assert [eta.duration(s) for s in (4.4, 59.6, 200, 3_900)] == [
        "4 s",
        "1 min 00 s",
        "3 min 20 s",
        "1 h 05 min",
    ]
