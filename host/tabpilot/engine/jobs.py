"""Scrapes as jobs: a correlation id each, one per tab, waited on for a while, polled, cancelled.

A call waits up to `wait_ms` for the result; a scrape still running then answers
`{status: "running", correlation_id, ...progress}` and `result(correlation_id)` returns it later.
Finished results are kept on disk (the last 10), so they outlive a host restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.scrape import ReplayRequest, ScrapeRequest, parse_request
from . import eta, journal, result, typed, urlscrub, workflows
from .browser import Browser
from .context import DEFAULT_GRACE_S, RunState, obj
from .orchestrator import ScrapeOrchestrator
from .plan import Plan
from .store import WorkflowStore

log = logging.getLogger("tabpilot.engine")

DEFAULT_WAIT_MS = 20_000
_KEPT_IN_MEMORY = 10
_OWNER = "_browser"  # in a kept result's file: the instance id of the browser that made it
_FINAL = ("complete", "partial")  # a resumed run that ended so has nothing more to read
_encoder = msgspec.json.Encoder()


def _digest(req: ScrapeRequest) -> str:
    """What makes two calls the same run (`resume`): the request but its tab and its resume."""
    same = msgspec.structs.replace(req, resume=None, tab_id=None)
    return hashlib.sha256(msgspec.json.encode(msgspec.to_builtins(same), order="sorted")).hexdigest()[:32]


@dataclass(eq=False)
class Job:
    """One scrape in flight (or just finished)."""

    correlation_id: str
    plan: Plan
    state: RunState
    workflow_id: str | None = None
    result: dict[str, Any] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    base_pages: int = 0  # pages its journal held when this process took it on (a resumed run's)
    _watchers: list[Callable[[Job], None]] = field(default_factory=list[Callable[["Job"], None]])

    def watch(self, fn: Callable[[Job], None]) -> Callable[[], None]:
        """Call fn on every progress step until the returned function is called."""
        self._watchers.append(fn)
        return lambda: self._watchers.remove(fn) if fn in self._watchers else None

    def notify(self) -> None:
        """Progress moved: tell the watchers (a broken watcher never stops the scrape)."""
        for fn in list(self._watchers):
            try:
                fn(self)
            except Exception:
                log.exception("progress watcher failed")

    def snapshot(self) -> dict[str, Any]:
        """The result if finished, else where the scrape has come."""
        if self.result is not None:
            return self.result
        s = self.state
        started = s.step is not None or s.steps_completed > 0
        out = result.progress(
            (s.steps_completed, s.steps_total),
            s.pages,
            s.rows,
            self.correlation_id,
            "running" if started else "queued",
            obj(s.meta.get("follow")),
            eta.measure(s, self.base_pages),
        )
        if self.workflow_id:
            out["workflow_id"] = self.workflow_id
        return out


class Jobs:
    """Every scrape of one host: start, wait, look up, cancel; at most one per tab."""

    def __init__(self, browser: Browser, store: WorkflowStore, *, grace_s: float = DEFAULT_GRACE_S) -> None:
        self.browser = browser
        self.store = store
        self.orchestrator = ScrapeOrchestrator(store.root)
        self.grace_s = grace_s
        # The browser instance this host serves: a kept result is served only through the browser
        # that made it (its pilot switch, its scope).
        self.owner: Callable[[], str] = lambda: ""
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._saving: set[asyncio.Task[None]] = set()
        # The journal rows() read last, by its id, size and time: a reader paging through a big result
        # reads its file whole once, then only the pages it asks for.
        self._paged: tuple[str, int, int, journal.Recovered] | None = None

    def start(self, request: Any) -> Job:
        """Validate and start a request; raises invalid_params, workflow_not_found, workflow_in_progress."""
        req = parse_request(request)
        replay = isinstance(req, ReplayRequest)
        plan = workflows.replay_plan(req, self.store) if replay else self.orchestrator.plan(req)
        digest = _digest(req)
        found = None if req.resume is None else self._resumable(req.resume, digest)
        if found is not None and found.end is not None and found.end.get("status") in _FINAL:
            return self._answered(req.resume or "", found)
        busy = self._busy(plan.tab_id)
        if busy is not None:
            raise TabPilotError(
                ErrorCode.WORKFLOW_IN_PROGRESS,
                "another scrape is running in this tab; wait for it (observe command_result) or cancel it",
                data={
                    "active_workflow_id": busy.workflow_id or busy.plan.label(),
                    "correlation_id": busy.correlation_id,
                },
            )
        cid = req.resume or f"corr-{secrets.token_hex(6)}"
        state = RunState(steps_total=len(plan.steps), secrets=list(plan.secrets))
        budget = plan.options.max_bytes
        root = self.store.root
        try:
            if found is not None:
                state.journal = journal.Journal.reopen(root, found, cid, budget)
                state.pages, state.rows = found.tally.pages, found.tally.rows
            else:
                state.journal = journal.Journal.create(root, cid, self.owner(), digest, budget)
        except OSError as exc:  # a full or read-only disk: the run goes on, kept in memory as before
            log.error("cannot journal %s: %s", cid, exc)
        job = Job(correlation_id=cid, plan=plan, state=state, workflow_id=plan.replayed_from)
        job.base_pages = state.pages
        self._jobs[job.correlation_id] = job
        while len(self._jobs) > _KEPT_IN_MEMORY and next(iter(self._jobs.values())).result is not None:
            self._jobs.popitem(last=False)
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    def _own_journal(self, correlation_id: str, *, fields: bool = True) -> journal.Recovered | None:
        """The run's journal, if this browser's (another browser's pilot and scope decide over theirs)."""
        found = journal.load(self.store.root, correlation_id, fields=fields)
        return found if found is not None and found.owner == self.owner() else None

    def _paged_journal(self, correlation_id: str) -> journal.Recovered | None:
        """The run's journal for rows(): read again only when the file changed since the last read."""
        path = journal.path_of(self.store.root, correlation_id)
        try:
            stat = path.stat() if path is not None else None
        except OSError:
            stat = None
        if stat is None:
            return None
        kept = self._paged
        if kept is not None and kept[:3] == (correlation_id, stat.st_size, stat.st_mtime_ns):
            return kept[3] if kept[3].owner == self.owner() else None
        run = self._own_journal(correlation_id, fields=False)
        if run is not None:
            self._paged = (correlation_id, stat.st_size, stat.st_mtime_ns, run)
        return run

    def _resumable(self, correlation_id: str, digest: str) -> journal.Recovered:
        """The journal of the run `resume` names, when this call may go on with it."""
        if any(j.correlation_id == correlation_id for j in self.running()):
            raise TabPilotError(
                ErrorCode.WORKFLOW_IN_PROGRESS,
                f"{correlation_id} is still running; wait for it (observe command_result) or cancel it",
                data={"correlation_id": correlation_id},
            )
        found = self._own_journal(correlation_id, fields=False)
        if found is None:
            raise TabPilotError(
                ErrorCode.WORKFLOW_NOT_FOUND,
                f"no run {correlation_id!r} to resume in this browser "
                f"(the last {journal.RUNS_KEPT} are kept)",
            )
        if found.digest != digest:
            raise TabPilotError(
                ErrorCode.INVALID_PARAMS,
                f"resume: this call is not the one {correlation_id} ran; send the same call with resume "
                "(only wait_ms and tab_id may differ)",
            )
        return journal.load(self.store.root, correlation_id) or found

    def _answered(self, correlation_id: str, found: journal.Recovered) -> Job:
        """A run `resume` names that had ended with all it could read: its answer again, nothing rerun."""
        job = self._jobs.get(correlation_id)
        if job is None:
            req = journal.Journal.reopen(self.store.root, found, correlation_id, write=False)
            state = RunState(steps_total=0, journal=req)
            job = Job(correlation_id, Plan(operation="resume", steps=[]), state)
            job.result = urlscrub.scrub_value(result.recovered(correlation_id, req))
            job.done.set()
        return job

    def _busy(self, tab_id: int | None) -> Job | None:
        """A running scrape in that tab: one asked for the same tab (or the same "current tab"), or
        one that started in the current tab and turned out to be this one."""
        for job in self.running():
            if job.plan.tab_id == tab_id or (tab_id is not None and job.state.tab_id == tab_id):
                return job
        return None

    async def _run(self, job: Job) -> None:
        plan = job.plan
        try:
            outcome = await self.orchestrator.run(
                plan, self.browser, job.state, on_progress=job.notify, grace_s=self.grace_s
            )
            recorded = None
            if plan.record and outcome.ok:
                try:
                    recorded = self.store.save(workflows.record(plan, outcome))
                except OSError as exc:
                    log.error("could not record workflow %s: %s", plan.name, exc)
            job.workflow_id = recorded or job.workflow_id
            value = urlscrub.scrub_value(
                typed.scrub(
                    result.response(outcome, plan, job.correlation_id, job.workflow_id), job.state.secrets
                )
            )
            if plan.record:
                value["metadata"]["recorded"] = recorded is not None
            job.result = value
            if job.state.journal is not None:
                job.state.journal.end(value)
            # Kept on disk off the caller's path: it is waiting for this very result.
            self._keep(job.correlation_id, value)
            if plan.operation == "extract" or job.state.extracts:
                self._later(self.orchestrator.flush)
        except Exception as exc:  # a bug: the caller still gets an answer, not a hang
            log.exception("scrape %s crashed", job.correlation_id)
            failed = {
                "status": "error",
                "correlation_id": job.correlation_id,
                "error": str(ErrorCode.INTERNAL_ERROR),
                "message": f"the scrape engine failed ({type(exc).__name__}: {exc}); see the host log",
                "data": job.state.data,
                "metadata": {"rows_extracted": job.state.rows, "errors": job.state.errors},
            }
            job.result = urlscrub.scrub_value(typed.scrub(failed, job.state.secrets))
        finally:
            if job.state.journal is not None:
                job.state.journal.close()
            # Answered: the rows it held go (its journal and kept result have them), so finished jobs
            # kept for command_result cost no memory.
            job.state.data = []
            job.state.journal = None
            job.done.set()
            job.notify()

    def _keep(self, correlation_id: str, value: dict[str, Any]) -> None:
        self._later(self.store.save_result, correlation_id, {**value, _OWNER: self.owner()})

    def _later(self, write: Callable[..., None], *args: Any) -> None:
        """Write to disk in a worker thread, off the caller's path (shutdown waits for it)."""

        async def save() -> None:
            try:
                await asyncio.to_thread(write, *args)
            except OSError as exc:
                log.error("could not write %s: %s", getattr(write, "__name__", "data"), exc)

        task = asyncio.get_running_loop().create_task(save())
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def wait(self, job: Job, wait_ms: int) -> dict[str, Any]:
        """The result if it comes within wait_ms, else the progress so far."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(wait_ms, 0) / 1000):
                await job.done.wait()
        return job.snapshot()

    async def result(self, correlation_id: str, wait_ms: int = 0) -> dict[str, Any]:
        """A running or recent scrape by correlation id (kept results survive a host restart)."""
        job = self._jobs.get(correlation_id)
        if job is not None:
            return await self.wait(job, wait_ms)
        found: Any = self.store.get_result(correlation_id)
        kept = cast(dict[str, Any], found) if isinstance(found, dict) else None
        if kept is not None and kept.pop(_OWNER, None) != self.owner():
            kept = None  # another browser's: its pilot and its scope decide, not this one's
        if kept is None:
            # A run whose host died before it ended: what its journal holds.
            run = self._own_journal(correlation_id)
            if run is not None:
                read = journal.Journal.reopen(self.store.root, run, correlation_id, write=False)
                return urlscrub.scrub_value(result.recovered(correlation_id, read))
            raise TabPilotError(
                ErrorCode.WORKFLOW_NOT_FOUND,
                f"no scrape with correlation_id {correlation_id!r} (only the last 10 results are kept)",
            )
        return kept

    def rows(self, correlation_id: str, offset: int, limit: int, max_bytes: int) -> dict[str, Any]:
        """Rows offset.. of a run (running or ended), as many as fit `max_bytes`; `origins`: the sites
        its pages came from, for the caller's scope check."""
        run = self._paged_journal(correlation_id)
        if run is None:
            raise TabPilotError(
                ErrorCode.WORKFLOW_NOT_FOUND,
                f"no rows kept for {correlation_id!r} in this browser "
                f"(the last {journal.RUNS_KEPT} runs are kept)",
            )
        rows: list[Any] = []
        used = 2
        for row in journal.rows_of(self.store.root, correlation_id, offset, limit, run.starts):
            size = len(_encoder.encode(row)) + 1
            if used + size > max_bytes and rows:
                break
            rows.append(row)
            used += size
        end = offset + len(rows)
        running = any(j.correlation_id == correlation_id for j in self.running())
        return {
            "correlation_id": correlation_id,
            "offset": offset,
            "rows": rows,
            "total": run.tally.rows,
            "next_offset": end if end < run.tally.rows else None,
            "finished": not running and run.end is not None,
            "origins": sorted(run.tally.origins),
        }

    async def cancel(self, correlation_id: str) -> dict[str, Any]:
        """Stop a scrape; its answer is the data it had (a finished one answers as it ended)."""
        job = self._jobs.get(correlation_id)
        if job is None:
            return await self.result(correlation_id)
        if job.task is not None and not job.done.is_set():
            job.task.cancel()
        await job.done.wait()
        return job.snapshot()

    def running(self) -> list[Job]:
        """Scrapes not finished yet."""
        return [j for j in self._jobs.values() if not j.done.is_set()]

    async def shutdown(self, timeout_s: float = 2.0) -> None:
        """Let running scrapes end (their browser calls fail fast once the extension is gone), then cancel."""
        pending = [j.task for j in self.running() if j.task is not None]
        if pending:
            _, late = await asyncio.wait(pending, timeout=timeout_s)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=timeout_s)
        if self._saving:
            await asyncio.wait(list(self._saving), timeout=timeout_s)
