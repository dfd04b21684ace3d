"""Run one scrape through a connected (or freshly launched) browser's host, with a progress bar."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..link.client import BrowserPool
from ..wire import messages as m
from ..wire.errors import ErrorCode
from ..wire.scrape import ScrapeRequest

# The host answers a long wait with the progress so far; the CLI then asks again.
_WAIT_MS = 300_000
_MARGIN_S = 30.0


@dataclass
class Target:
    """Which browser to use: a named one, or the only one connected."""

    browser: str | None = None


class Interrupted(Exception):
    """Ctrl-C stopped the scrape; `value` is the host's answer to the cancel, with the rows so far."""

    def __init__(self, value: dict[str, Any]) -> None:
        super().__init__("interrupted")
        self.value = value


class Bar:
    """A rich progress bar on stderr (nothing when stderr is not a terminal or --quiet)."""

    def __init__(self, console: Console, enabled: bool) -> None:
        self._progress = Progress(
            TextColumn("[bold]scrape"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._task = self._progress.add_task("starting", total=None)

    def __enter__(self) -> Bar:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    async def update(self, p: m.Progress) -> None:
        """Move the bar to a Progress message from the host."""
        self._progress.update(self._task, completed=int(p.progress), total=p.total, description=p.message)


async def scrape(
    request: ScrapeRequest, target: Target, bar: Bar, pool: BrowserPool | None = None
) -> dict[str, Any]:
    """Start the scrape and wait for its end; Ctrl-C (SIGINT) cancels it and raises Interrupted with
    the partial data."""
    own = pool is None
    pool = pool or BrowserPool(connect_wait_s=5.0)
    try:
        with _ctrl_c() as interrupted:  # from before the scrape starts: a Ctrl-C at once cancels it too
            # wait_ms 0 first: the correlation id is what a Ctrl-C needs to cancel the right scrape.
            value = await pool.call(
                m.Scrape(id=0, request=request, wait_ms=0), browser=target.browser, timeout_s=_MARGIN_S
            )
            return await _until_done(pool, target, bar, value, interrupted, cancel=True)
    finally:
        if own:
            await pool.aclose()


async def follow(
    correlation_id: str, target: Target, bar: Bar, on_waiting: Callable[[], None] | None = None
) -> dict[str, Any]:
    """A scrape started elsewhere (another terminal, an agent), its progress on the bar, until it ends;
    Ctrl-C stops following only (the run goes on) and raises Interrupted with where it had come.
    `on_waiting`: called once Ctrl-C is ours, as the wait begins."""
    pool = BrowserPool(connect_wait_s=5.0)
    try:
        with _ctrl_c() as interrupted:
            value = await pool.call(
                m.JobResult(id=0, correlation_id=correlation_id, wait_ms=0),
                browser=target.browser,
                timeout_s=_MARGIN_S,
            )
            return await _until_done(
                pool, target, bar, value, interrupted, cancel=False, on_waiting=on_waiting
            )
    finally:
        await pool.aclose()


async def cancel(correlation_id: str, target: Target) -> dict[str, Any]:
    """Stop a running scrape; its answer holds every row it had read."""
    pool = BrowserPool(connect_wait_s=5.0)
    try:
        return await pool.call(
            m.CancelJob(id=0, correlation_id=correlation_id), browser=target.browser, timeout_s=_MARGIN_S
        )
    finally:
        await pool.aclose()


@contextlib.contextmanager
def _ctrl_c() -> Generator[asyncio.Event]:
    """An event Ctrl-C (SIGINT) sets while the block runs: our handler, not asyncio.run's, which would end
    the run without the partial data."""
    loop = asyncio.get_running_loop()
    interrupted = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, interrupted.set)
    try:
        yield interrupted
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


async def _until_done(
    pool: BrowserPool,
    target: Target,
    bar: Bar,
    value: dict[str, Any],
    interrupted: asyncio.Event,
    *,
    cancel: bool,
    on_waiting: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Wait on the run `value` names until it ends, the bar following it. Ctrl-C (`interrupted`, also
    before this wait began) cancels it (`cancel`) or only stops waiting, and raises Interrupted with the
    host's answer."""
    if on_waiting is not None:
        on_waiting()
    cid = str(value.get("correlation_id", ""))
    while value.get("status") in ("queued", "running"):
        wait = m.JobResult(id=0, correlation_id=cid, wait_ms=_WAIT_MS, progress=True)
        call = asyncio.ensure_future(
            pool.call(
                wait,
                browser=target.browser,
                timeout_s=_WAIT_MS / 1000 + _MARGIN_S,
                on_progress=bar.update,
            )
        )
        stop = asyncio.ensure_future(interrupted.wait())
        await asyncio.wait([call, stop], return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not call.done():
            call.cancel()
            command: m.Command = (
                m.CancelJob(id=0, correlation_id=cid) if cancel else m.JobResult(id=0, correlation_id=cid)
            )
            raise Interrupted(await pool.call(command, browser=target.browser, timeout_s=_MARGIN_S))
        value = call.result()
    return value


async def workflow_op(target: Target, op: str, **fields: Any) -> Any:
    """One WorkflowOp against the chosen browser's host (`info`: the host's HostInfo, which answers
    whatever the pilot's state)."""
    pool = BrowserPool(connect_wait_s=5.0)
    command = m.HostInfo(id=0) if op == "info" else m.WorkflowOp(id=0, op=op, **fields)
    try:
        return await pool.call(command, browser=target.browser, timeout_s=30)
    finally:
        await pool.aclose()


def describe_error(value: dict[str, Any]) -> str:
    """One line for stderr about a scrape that did not complete."""
    code = value.get("error") or str(ErrorCode.INTERNAL_ERROR)
    extra = f" (redirect_url: {value['redirect_url']})" if value.get("redirect_url") else ""
    return f"[{code}] {value.get('message', '')}{extra}"
