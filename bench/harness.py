"""Starting the real-app corpus's apps for a scenario, optionally logging the requests they answer."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.fixtures.realapps import corpus, sitelog, tasks

from .client import progress


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
