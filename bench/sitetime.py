"""The site's own time during a tool call: how long the app server was busy answering the requests the
call made (tests/fixtures/realapps/sitelog.py logs them), the floor under any tool making the same
requests. Requests in parallel overlap: the busy time is the length of the union of their intervals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tests.fixtures.realapps.sitelog import Recording, Request


def union_length(spans: Iterable[tuple[float, float]]) -> float:
    """Total length covered by the (start, end) intervals, overlaps counted once."""
    covered, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered


@dataclass(frozen=True)
class SiteTime:
    """The site's share of one window: busy ms (the union of its request intervals) and requests."""

    busy_ms: float
    requests: int

    @classmethod
    def of(cls, requests: list[Request], start: float, end: float) -> SiteTime:
        """The requests' busy time inside the window [start, end] (monotonic seconds)."""
        spans = [(max(r.start, start), min(r.end, end)) for r in requests]
        busy = union_length((a, b) for a, b in spans if b > a)
        return cls(busy_ms=busy * 1000, requests=len(requests))

    @classmethod
    def read(cls, recording: Recording, start: float, end: float) -> tuple[SiteTime, list[Request]]:
        """The site's time for a window from a request log, and the requests themselves."""
        requests = recording.between(start, end)
        return cls.of(requests, start, end), requests
