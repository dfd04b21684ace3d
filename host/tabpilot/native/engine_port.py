"""The host's scrape service: bridge requests (Scrape, JobResult, CancelJob, WorkflowOp, ExtractionOp)
served by the engine, which reaches the extension through the host's own command path
(`NativeHost.call`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import msgspec

from ..engine import eta, scope, urlscrub, workflows
from ..engine.browser import Browser
from ..engine.context import obj
from ..engine.jobs import Job, Jobs
from ..engine.store import WorkflowStore, decode_doc, encode_doc
from ..wire import messages as m
from ..wire.errors import ErrorCode, TabPilotError

log = logging.getLogger("tabpilot.host.engine")

Send = Callable[[m.Message], None]
_encoder = msgspec.json.Encoder()
_ANNOUNCE_EVERY_S = 0.25
# MCP progress at most this often (the latest count goes out at the end of the spell): one a page cost the
# host, the bridge and the client a message each for every page of a long fast run.
_PROGRESS_EVERY_S = 0.1
_STATUS_TIMEOUT_S = 2.0
_ROWS_MAX = 10_000  # rows of a result read back at once...
_BYTES_MAX = 4 * 1024 * 1024  # ...and bytes


class EnginePort:
    """Serves the engine's messages for any bridge; each request runs as its own task."""

    def __init__(
        self,
        browser: Browser,
        data_dir: Path,
        pilot: Callable[[], bool] = lambda: True,
        announce: Callable[[dict[str, Any]], None] | None = None,
        instance: Callable[[], str] = lambda: "",
    ) -> None:
        self.pilot = pilot
        self.announce = announce
        self.store = WorkflowStore(data_dir)
        self.jobs = Jobs(browser, self.store)
        self.jobs.owner = instance
        self._tasks: set[asyncio.Task[None]] = set()

    def handle(self, send: Send, msg: m.Command) -> None:
        """Answer `msg` through `send` when ready (Progress messages first, if asked for)."""
        task = asyncio.get_running_loop().create_task(self._serve(send, msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, send: Send, msg: m.Command) -> None:
        try:
            value = await self._answer(send, msg)
        except TabPilotError as exc:
            send(
                m.Error(
                    id=msg.id,
                    code=str(exc.code),
                    message=urlscrub.scrub_text(exc.message),
                    retryable=exc.retryable,
                    data=urlscrub.scrub_value(exc.data),
                )
            )
            return
        except Exception as exc:
            log.exception("engine request %s failed", type(msg).__name__)
            send(m.Error(id=msg.id, code=ErrorCode.INTERNAL_ERROR, message=f"{type(exc).__name__}: {exc}"))
            return
        # A scrape's answer was scrubbed when it was made (jobs.py), as what is kept on disk: once is
        # enough (a pass over every row of a big result costs milliseconds); every other answer here.
        clean = value if isinstance(msg, (m.Scrape, m.JobResult)) else urlscrub.scrub_value(value)
        send(m.Result(id=msg.id, value=msgspec.Raw(_encoder.encode(clean))))

    async def _answer(self, send: Send, msg: m.Command) -> Any:
        # Off means off: stored results, workflows and strategies are the pilot's too, so the host
        # refuses them as the extension refuses its commands. (The `tabpilot workflows` CLI reads
        # the store from disk itself: it is the local person's, not the agent's.)
        if not await self._pilot_on():
            raise TabPilotError(
                ErrorCode.AI_WEB_PILOT_DISABLED, "Enable 'AI Web Pilot' in extension popup to use this tool"
            )
        match msg:
            case m.Scrape():
                job = self.jobs.start(msg.request)
                self._follow(job)
                return await self._wait(send, msg.id, job, msg.wait_ms, msg.progress)
            case m.JobResult():
                job = next((j for j in self.jobs.running() if j.correlation_id == msg.correlation_id), None)
                if job is not None:
                    return await self._wait(send, msg.id, job, msg.wait_ms, msg.progress)
                return self._in_scope(
                    await self.jobs.result(msg.correlation_id, msg.wait_ms), await self._sites()
                )
            case m.CancelJob():
                return await self.jobs.cancel(msg.correlation_id)
            case m.ResultRows():
                limit, budget = max(0, min(msg.limit, _ROWS_MAX)), max(1_000, min(msg.max_bytes, _BYTES_MAX))
                page = await asyncio.to_thread(
                    self.jobs.rows, msg.correlation_id, max(0, msg.offset), limit, budget
                )
                sites = await self._sites()
                outside = [o for o in page.pop("origins") if not scope.allows_url(sites, o)]
                if outside:
                    raise scope.refused(scope.site_of(outside[0]))
                return page
            case m.WorkflowOp():
                return self._workflow_op(msg, await self._sites())
            case m.ExtractionOp():
                sites = await self._sites()
                if msg.extraction_id is not None:
                    self._strategy_in_scope(msg.extraction_id, sites)
                value = self.jobs.orchestrator.answer(msg.op, msg.extraction_id)
                if msg.op == "strategies":
                    value["strategies"] = [
                        s
                        for s in value["strategies"]
                        if scope.allows_url(sites, str(s.get("url_pattern", "")))
                    ]
                if msg.op == "clear_aggregate":
                    await asyncio.to_thread(self.jobs.orchestrator.flush)  # a restart must not bring it back
                return value
            case _:
                raise TabPilotError(ErrorCode.UNKNOWN_COMMAND, f"not an engine request: {type(msg).__name__}")

    async def _pilot_on(self) -> bool:
        """Whether the pilot is on; when the host's copy says off, the extension (which owns it) decides.

        The host hears of a switch-on by an event; a scrape sent the moment the person flipped the
        toggle can arrive before that event and must not be refused for it."""
        if self.pilot():
            return True
        try:
            async with asyncio.timeout(_STATUS_TIMEOUT_S):
                status = await self.jobs.browser.call(m.GetStatus(id=0))
        except (TabPilotError, TimeoutError):
            return False
        return isinstance(status, dict) and cast(dict[str, Any], status).get("pilot") is True

    async def _sites(self) -> scope.Sites:
        """The sites the browser allows now (None: every site); stored data is served for those only."""
        status = await self.jobs.browser.call(m.GetStatus(id=0))
        sites: Any = cast(dict[str, Any], status).get("sites") if isinstance(status, dict) else []
        return [str(p) for p in cast(list[Any], sites)] if isinstance(sites, list) else None

    @staticmethod
    def _in_scope(value: dict[str, Any], sites: scope.Sites) -> dict[str, Any]:
        url = str(obj(value.get("metadata")).get("url") or "")
        if value.get("status") not in ("running", "queued") and not scope.allows_url(sites, url):
            raise scope.refused(scope.site_of(url))
        return value

    def _strategy_in_scope(self, extraction_id: str, sites: scope.Sites) -> None:
        for s in self.jobs.orchestrator.answer("strategies", None)["strategies"]:
            pattern = str(s.get("url_pattern", ""))
            if s.get("extraction_id") == extraction_id and not scope.allows_url(sites, pattern):
                raise scope.refused(scope.site_of(pattern))

    def _follow(self, job: Job) -> None:
        """Tell the extension what runs (for the popup): at start and end, at most 4 times a second."""
        announce = self.announce
        if announce is None:
            return
        loop = asyncio.get_running_loop()
        last = [-1.0]

        def report(j: Job) -> None:
            now = loop.time()
            finished = j.result is not None
            if not finished and now - last[0] < _ANNOUNCE_EVERY_S:
                return
            last[0] = now
            s = j.state
            status = (
                str(j.result.get("status"))
                if j.result is not None
                else ("running" if s.step is not None else "queued")
            )
            announce(
                {
                    "correlation_id": j.correlation_id,
                    "label": j.workflow_id or j.plan.label(),
                    "status": status,
                    "steps_completed": s.steps_completed,
                    "steps_total": s.steps_total,
                    "pages": s.pages,
                    "rows": s.rows,
                }
            )
            if finished:
                stop()

        stop = job.watch(report)
        report(job)

    async def _wait(self, send: Send, msg_id: int, job: Job, wait_ms: int, progress: bool) -> Any:
        if not progress:
            return await self.jobs.wait(job, wait_ms)
        last = -1.0
        loop = asyncio.get_running_loop()
        sent_at = -_PROGRESS_EVERY_S
        pending: m.Progress | None = None  # the spell's latest count, sent when it ends
        later: asyncio.TimerHandle | None = None

        def report(j: Job) -> None:
            nonlocal sent_at, pending, later
            note = counted(j)  # now, while the run's state is whole
            if note is None:
                return
            wait = sent_at + _PROGRESS_EVERY_S - loop.time()
            if wait <= 0 and later is None:
                sent_at = loop.time()
                send(note)
                return
            pending = note
            if later is None:
                later = loop.call_later(max(0.0, wait), due)

        def due() -> None:
            nonlocal sent_at, pending, later
            later = None
            if pending is not None:
                sent_at = loop.time()
                send(pending)
                pending = None

        def counted(j: Job) -> m.Progress | None:
            nonlocal last
            s = j.state
            follow = obj(s.meta.get("follow"))
            details = int(follow.get("done", 0))
            moved = s.pages + details
            one_step = s.steps_total <= 1
            # One step (an extract): the count is its pages (and detail pages). Several: whole steps, plus a
            # growing fraction for pages within them. Monotonic either way, as MCP requires.
            value = float(moved) if one_step else min(s.steps_total, s.steps_completed + moved / (moved + 1))
            if value <= last:
                return None
            last = value
            seen = eta.measure(s, j.base_pages)
            text = eta.words(seen)
            if follow:
                text += f", {details}/{follow.get('total', 0)} detail pages"
            total: float | None
            if one_step:
                # Out of the pages it will read, when that is known.
                known = seen.get("pages_total")
                total = None if known is None or follow else float(known)
            else:
                total = float(s.steps_total)
                text = f"step {min(s.steps_completed + 1, s.steps_total)}/{s.steps_total}: {text}"
            # The run's id in the words too: a client shows them, and another call follows or cancels the
            # run by it while this one still waits.
            text += f" (run {j.correlation_id})"
            return m.Progress(
                id=msg_id, progress=value, total=total, message=text, correlation_id=j.correlation_id
            )

        stop = job.watch(report)
        report(job)  # at once: the caller learns the correlation id before anything can go wrong
        try:
            return await self.jobs.wait(job, wait_ms)
        finally:
            stop()
            if later is not None:
                later.cancel()
            if pending is not None:
                send(pending)  # the spell's latest count, before the answer: a throttle drops none at the end

    def _workflow_op(self, msg: m.WorkflowOp, sites: scope.Sites) -> Any:
        if msg.op == "list":
            listed = workflows.listing(self.store)
            return {
                "workflows": [w for w in listed if all(scope.allows_domain(sites, d) for d in w["domains"])]
            }
        if msg.op in ("get", "delete") and not msg.workflow_id:
            raise TabPilotError(ErrorCode.INVALID_PARAMS, f"{msg.op} needs workflow_id")
        if msg.op == "get":
            doc = self.store.get(msg.workflow_id or "", touch=False)
            outside = [d for d in doc.domains if not scope.allows_domain(sites, d)]
            if outside:
                raise scope.refused(outside[0])
            return {"workflow_id": doc.id, "document": encode_doc(doc).decode()}
        if msg.op == "delete":
            self.store.delete(msg.workflow_id or "")
            return {"deleted": msg.workflow_id}
        if msg.op == "import":
            doc = decode_doc(msg.document or "")
            workflows.validate(doc)
            self.store.save(doc)
            return {"workflow_id": doc.id, "imported": True}
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS, f"unknown workflow op {msg.op!r}: list, get, import, delete"
        )

    async def shutdown(self) -> None:
        """Let running scrapes end with their partial data and answer their callers."""
        await self.jobs.shutdown()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
