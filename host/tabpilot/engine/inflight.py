"""How many detail pages `follow` asks a site for at once, from how the site answers, and which failures
are worth one more try.

`follow.concurrency` is the ceiling, not the pace: a site whose answers slow down as more requests are in
flight is queueing them (a fixed pool of workers, a database under load), and more at once only makes
every answer later and the site busier. So the number in flight grows while answers stay as fast as the
fastest seen — doubling at first, then one more per round of good answers — and halves when an answer
takes more than twice as long as the fastest (and at least SLACK_S more: a fetched page's time is its
request's own, as the page measured it, but a rendered page's is the whole trip through the extension
and a tab, and on a busy machine that alone varies by tens of milliseconds, which is not the site
slowing down) or the site fails the way an overloaded one does (5xx, 429, a dropped connection). It
halves at most once per round: the answers already under way report the old pace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, cast

from ..wire.errors import ErrorCode, TabPilotError

SLOW = 2.0  # an answer this many times the fastest one is a site that queues
SLACK_S = 0.05


def transient(exc: TabPilotError) -> bool:
    """Whether a failure is one a second try may not meet: the server erred (5xx) or asked to slow down
    (429), or the connection failed without an answer (a reset); a 4xx, a redirect or a missing element
    would only fail again."""
    if exc.code not in (ErrorCode.HTTP_ERROR, ErrorCode.NAVIGATION_FAILED):
        return False
    data: Any = exc.data
    status: Any = cast(Mapping[str, Any], data).get("status") if isinstance(data, Mapping) else None
    if isinstance(status, int) and status > 0:
        return status >= 500 or status == 429
    return exc.code == ErrorCode.NAVIGATION_FAILED  # no status: the request got no answer at all


class Inflight:
    """A semaphore whose size follows the site's answers (see the module's docstring)."""

    def __init__(self, ceiling: int, start: int | None = None) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = self.ceiling
        # Places held here per place at the site: 2 while the page itself holds the site to `limit`
        # (fetched pages: page/fetch_details.js), so that the next pages wait there, not in a command
        # still to be sent; 1 where a place here is a request at the site (a tab, a page fetched alone).
        self.depth: Callable[[], int] = lambda: 1
        self.active = 0
        self.fastest: float | None = None
        self.growing = True  # doubling until the first slow answer
        self.good = 0  # good answers since the limit last changed
        self.round = 0  # bumped when the limit changes down: answers started before report the old pace
        self.peak = 0
        self._changed = asyncio.Condition()
        self.restart(self.ceiling if start is None else start)

    @property
    def slowed(self) -> bool:
        """Whether the site has slowed down since the pace was last learned afresh."""
        return not self.growing

    def restart(self, start: int) -> None:
        """Learn the site's pace afresh from `start` in flight (what was measured before is forgotten)."""
        self.limit = max(1, min(start, self.ceiling))
        self.peak = max(self.peak, self.limit)
        self.fastest, self.growing, self.good = None, True, 0
        self.round += 1

    async def acquire(self, room: Callable[[], int] | None = None) -> int:
        """Wait for a free place, leaving `room()` more free (requests under way that hold no place of
        their own; negative: places held that put no load on the site, so not counted against the pace),
        asked again whenever a place is given back; never more than `depth` × the ceiling hold places.
        The round the request starts in (give it back to `release`)."""

        def free() -> bool:
            depth = self.depth()
            held = self.active + (room() if room else 0)
            return self.active < self.ceiling * depth and held < self.limit * depth

        async with self._changed:
            await self._changed.wait_for(free)
            self.active += 1
            return self.round

    async def release(self, started_round: int, seconds: float | None, failed: bool = False) -> None:
        """A request is over: it took `seconds` (None: not a measure of the site, e.g. a wait for
        something else), or `failed` the way an overloaded site fails."""
        async with self._changed:
            self.active -= 1
            self._learn(started_round, seconds, failed)
            self._changed.notify_all()

    def _learn(self, started_round: int, seconds: float | None, failed: bool) -> None:
        if seconds is not None and not failed and (self.fastest is None or seconds < self.fastest):
            self.fastest = seconds
        fastest = self.fastest
        slow = bool(seconds and fastest and seconds > max(SLOW * fastest, fastest + SLACK_S))
        if failed or slow:
            if started_round == self.round:  # once a round: the others started at the old pace
                self.limit = max(1, self.limit // 2)
                self.round += 1
                self.growing = False
                self.good = 0
            return
        if seconds is None:
            return
        self.good += 1
        if self.good >= self.limit and self.limit < self.ceiling:
            self.limit = min(self.ceiling, self.limit * 2 if self.growing else self.limit + 1)
            self.peak = max(self.peak, self.limit)
            self.good = 0
