"""What a numbered pager tells: the number that counts pages, its step, the last page linked, and the
URLs ahead, never past that last page and never on a guess."""

from __future__ import annotations

from tabpilot.engine.paging.numbered import differs, learn, merge

L = "https://x.example/list"


def test_differs_finds_the_one_number_that_changes() -> None:
    assert differs(f"{L}?page=2", f"{L}?page=13") == 1
    assert differs("/p/2/?n=50", "/p/3/?n=50") == 1
    assert differs("/p/2/?n=50", "/p/2/?n=20") == 3
    assert differs(f"{L}?page=2", f"{L}?page=3&x=1") is None
    assert differs("/a?x=1&y=1", "/a?x=2&y=2") is None
    assert differs(L, f"{L}?page=2") is None


def test_a_page_pager_tells_the_pages_up_to_the_last_one_linked() -> None:
    # Page 2 of 20: "1 2 3 4 5 … 20", next is page 3.
    run = learn(f"{L}?page=2", f"{L}?page=3", [f"{L}?page=1", *(f"{L}?page={n}" for n in (4, 5, 20))])
    assert run is not None and (run.step, run.last) == (1, 20)
    assert run.ahead(f"{L}?page=3", 3) == [f"{L}?page=4", f"{L}?page=5", f"{L}?page=6"]
    assert run.ahead(f"{L}?page=18", 5) == [f"{L}?page=19", f"{L}?page=20"]
    assert run.ahead(f"{L}?page=20", 5) == []
    assert run.ahead(f"{L}?sort=x&page=3", 5) == [], "another URL shape tells nothing"


def test_an_offset_pager_counts_in_its_own_step() -> None:
    pager = [f"/i?start={n}&n=50" for n in (0, 100, 150, 200, 950)]
    run = learn("/i?start=50&n=50", "/i?start=100&n=50", pager)
    assert run is not None and (run.step, run.last) == (50, 950)
    assert run.ahead("/i?start=100&n=50", 2) == ["/i?start=150&n=50", "/i?start=200&n=50"]


def test_page_1_without_a_number_learns_from_its_pager_alone() -> None:
    run = learn(L, f"{L}?page=2", [f"{L}?page=3", f"{L}?page=4", f"{L}?page=9"])
    assert run is not None and (run.step, run.last) == (1, 9)
    assert run.ahead(f"{L}?page=2", 10) == [f"{L}?page={n}" for n in range(3, 10)]


def test_no_numbered_link_beyond_the_next_one_tells_nothing_ahead() -> None:
    # The next link alone: where the list ends is unknown, so nothing is fetched on a guess.
    assert learn(L, f"{L}?page=2", []) is None
    run = learn(f"{L}?page=1", f"{L}?page=2", [])
    assert run is None or run.ahead(f"{L}?page=2", 6) == []
    run = learn(f"{L}?page=4", f"{L}?page=5", [f"{L}?page=1", f"{L}?page=2", f"{L}?page=3"])
    assert run is not None and run.ahead(f"{L}?page=5", 6) == []


def test_uncertain_pagers_tell_nothing() -> None:
    # Links on both sides of the next one, and page 1's URL without a number: which way is ahead?
    assert learn(L, f"{L}?page=5", [f"{L}?page=4", f"{L}?page=6"]) is None
    # Zero-padded numbers would not come back the same.
    assert learn("/p/001", "/p/002", ["/p/003"]) is None
    # Only a "previous" link beside the next one, and the page's own URL of another shape (Roundup's
    # offset pager seen from its second page): not a list counting down.
    assert learn("/issue?@sort=id", "/issue?@start=100", ["/issue?@start=0"]) is None
    # The numbered links vary another number than the page's, as often as the page's.
    assert learn(L, "/a?x=2&y=2", ["/a?x=3&y=2", "/a?x=2&y=3"]) is None


def test_pages_numbered_downwards_go_down() -> None:
    run = learn("/archive/20", "/archive/19", ["/archive/18", "/archive/17", "/archive/1"])
    assert run is not None and (run.step, run.last) == (-1, 1)
    assert run.ahead("/archive/19", 2) == ["/archive/18", "/archive/17"]


def test_later_pages_move_the_last_page_known_forward() -> None:
    # A sliding pager: page 2 links up to 4, page 4 up to 6.
    first = learn(f"{L}?page=2", f"{L}?page=3", [f"{L}?page=1", f"{L}?page=4"])
    later = learn(f"{L}?page=4", f"{L}?page=5", [f"{L}?page=3", f"{L}?page=6"])
    both = merge(first, later)
    assert both is not None and both.last == 6
    assert merge(later, first) == both or (merge(later, first) or both).last == 6
    assert merge(None, first) == first and merge(first, None) == first
    other = learn("/b?page=2", "/b?page=3", ["/b?page=9"])
    assert merge(first, other) == other, "another list's pager replaces what was known"
