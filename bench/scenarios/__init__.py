"""The registry: every scenario `python -m bench` runs, in the order it runs them and docs/performance.md
shows them. A scenario measures with a Session and Options and returns plain JSON; its `table` turns
that JSON into the markdown the docs show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..session import Options, Session


@dataclass(frozen=True)
class Scenario:
    """One measured thing: `run` returns JSON-able results, `table` renders them as markdown."""

    name: str
    title: str
    about: str
    run: Callable[[Session, Options], dict[str, Any]]
    table: Callable[[dict[str, Any]], str]


def _all() -> list[Scenario]:
    from . import extract, feed, feedgrid, follow, latency, markdown, scale, sidebyside, snapshot, startup

    return [
        latency.SCENARIO,
        startup.SCENARIO,
        sidebyside.SCENARIO,
        follow.SCENARIO,
        extract.SCENARIO,
        snapshot.SCENARIO,
        markdown.SCENARIO,
        feed.SCENARIO,
        feedgrid.SCENARIO,
        scale.SCENARIO,
    ]


SCENARIOS: dict[str, Scenario] = {s.name: s for s in _all()}
