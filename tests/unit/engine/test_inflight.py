"""follow's pace (engine/inflight.py): more in flight while the site answers as fast as ever, half as many
when it slows down or fails like an overloaded site; and which failures are tried once more. The pace is
driven here with the answers' times given, not measured; test_follow_retry.py runs it inside follow."""

from __future__ import annotations

import asyncio

import pytest

from tabpilot.engine.inflight import Inflight, transient
from tabpilot.wire.errors import ErrorCode, TabPilotError

pytestmark = pytest.mark.anyio


async def answers(pace: Inflight, *seconds: float | None, failed: bool = False) -> None:
    """As many requests as `seconds` started now and answered in those times."""
    started = [await pace.acquire() for _ in seconds]
    for round_, s in zip(started, seconds, strict=True):
        await pace.release(round_, s, failed=failed)


async def test_the_pace_doubles_while_answers_stay_fast_up_to_the_ceiling() -> None:
    pace = Inflight(8, start=2)
    await answers(pace, 0.05, 0.05)
    assert pace.limit == 4
    await answers(pace, 0.05, 0.06, 0.05, 0.05)
    assert pace.limit == 8
    await answers(pace, *[0.05] * 8)
    assert pace.limit == 8 and pace.peak == 8


async def test_slow_answers_halve_the_pace_once_a_round_then_it_grows_by_one() -> None:
    pace = Inflight(8, start=8)
    await answers(pace, 0.05)  # the fastest answer: the site's own time
    # Eight at once, all four times as slow: one halving, not three (they all started at the old pace).
    await answers(pace, *[0.2] * 8)
    assert pace.limit == 4
    await answers(pace, 0.05, 0.05, 0.05, 0.05)
    assert pace.limit == 5, "after a slow answer, one more per round of good answers"
    await answers(pace, 0.3)
    assert pace.limit == 2


async def test_jitter_under_the_slack_is_not_a_slow_site() -> None:
    pace = Inflight(4, start=2)
    await answers(pace, 0.004, 0.004)
    # Up to ten times the fastest, but 40 ms more at most: a busy machine's round trip, not the site.
    await answers(pace, 0.044, 0.03, 0.009, 0.01)
    assert pace.limit == 4
    await answers(pace, 0.07)  # 66 ms more: the site
    assert pace.limit == 2


async def test_failures_like_an_overloaded_sites_halve_the_pace() -> None:
    pace = Inflight(8, start=8)
    await answers(pace, None, failed=True)
    assert pace.limit == 4
    await answers(pace, None)  # no measure: nothing learnt
    assert pace.limit == 4


async def test_no_more_than_the_pace_are_in_flight() -> None:
    pace = Inflight(4, start=1)
    first = await pace.acquire()
    second = asyncio.ensure_future(pace.acquire())
    await asyncio.sleep(0)  # let it try: it must still wait
    assert not second.done()
    await pace.release(first, 0.05)  # a good answer: the pace doubles to 2, and the waiting one goes
    assert await asyncio.wait_for(second, 1) == first
    assert pace.active == 1 and pace.limit == 2


async def test_a_restart_forgets_the_old_measures() -> None:
    pace = Inflight(8)
    assert pace.limit == 8
    await answers(pace, 0.01)
    pace.restart(2)
    assert (pace.limit, pace.fastest, pace.growing) == (2, None, True)
    await answers(pace, 0.5, 0.5)  # slow next to the old fastest, but that one is forgotten
    assert pace.limit == 4


@pytest.mark.parametrize(
    ("code", "data", "again"),
    [
        (ErrorCode.HTTP_ERROR, {"status": 503}, True),
        (ErrorCode.HTTP_ERROR, {"status": 500}, True),
        (ErrorCode.HTTP_ERROR, {"status": 429}, True),
        (ErrorCode.HTTP_ERROR, {"status": 404}, False),
        (ErrorCode.NAVIGATION_FAILED, {"status": 502, "url": "u"}, True),
        (ErrorCode.NAVIGATION_FAILED, {"status": 403, "url": "u"}, False),
        (ErrorCode.NAVIGATION_FAILED, {"url": "u", "reason": "fetch_failed"}, True),  # a reset
        (ErrorCode.NAVIGATION_FAILED, None, True),
        (ErrorCode.TIMEOUT, None, False),
        (ErrorCode.NAVIGATION_REDIRECT, {"status": 503}, False),
        (ErrorCode.ELEMENT_NOT_FOUND, None, False),
    ],
)
def test_which_failures_are_tried_again(code: ErrorCode, data: object, again: bool) -> None:
    assert transient(TabPilotError(code, "m", data=data)) is again


async def test_a_place_held_aside_from_the_pace_still_counts_against_the_ceiling() -> None:
    pace = Inflight(3, start=2)
    aside = await pace.acquire()  # a place whose holder puts no load on the site (room -1 below)
    started = [await pace.acquire(room=lambda: -1) for _ in range(2)]
    assert pace.active == 3
    third = asyncio.ensure_future(pace.acquire(room=lambda: -1))
    await asyncio.sleep(0)
    assert not third.done(), "three held: the ceiling, whatever the pace"
    await pace.release(aside, None)
    await asyncio.wait_for(third, 1)
    for round_ in started:
        await pace.release(round_, None)
