"""What the corpus benchmarks share: their command line (`--runs`, `--task`, `--json`), choosing tasks,
starting the corpus's apps (optionally logging their requests) and printing the results."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tests.fixtures.realapps import corpus, sitelog, tasks

from .client import progress


def arguments(
    prog: str, doc: str | None, runs: int = 3, what: str = "runs of each task"
) -> argparse.ArgumentParser:
    """A parser with `--runs N` and `--json`; a benchmark adds its own options."""
    parser = argparse.ArgumentParser(prog=prog, description=(doc or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=runs, help=what)
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parsed and checked arguments."""
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def report(results: dict[str, Any], args: argparse.Namespace, table: Callable[[dict[str, Any]], str]) -> int:
    """Print the results as JSON (`--json`) or as the benchmark's table."""
    print(json.dumps(results, indent=2) if args.json else table(results))
    return 0


def choose(chosen: Iterable[tasks.Task], text: str | None) -> list[tasks.Task]:
    """The tasks whose name contains `text` (all without it); exits when none does."""
    found = [t for t in chosen if text is None or text in t.name]
    if not found:
        raise SystemExit(f"no task name contains {text!r}")
    return found


@contextlib.contextmanager
def environ(name: str, value: str | None) -> Iterator[None]:
    """`name` set to `value` (left alone when None) for what starts meanwhile, as it was afterwards."""
    saved = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def start_apps(
    stack: contextlib.ExitStack, chosen: Iterable[tasks.Task], request_log: Path | None = None
) -> dict[str, str]:
    """Start each app the tasks need (until `stack` closes), its requests logged to `request_log` if
    given; {app: URL}."""
    urls: dict[str, str] = {}
    with environ(sitelog.ENV, None if request_log is None else str(request_log)):
        for app in dict.fromkeys(t.app for t in chosen):
            progress(f"starting {app}")
            urls[app] = stack.enter_context(getattr(corpus, app)())
    return urls
