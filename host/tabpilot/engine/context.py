"""What a running step sees: the browser (with deadlines and retries), the tab, variables, progress."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import msgspec

from ..wire.errors import ErrorCode, TabPilotError
from ..wire.messages import Command
from ..wire.scrape import ErrorRecovery
from . import trace
from .browser import Browser

if TYPE_CHECKING:
    from .journal import Journal, Point

# A browser implementation has its own deadline per command (the host: timeout + 5 s); this one only
# guards against an implementation that has none.
DEFAULT_GRACE_S = 6.0
# A journaled run holds this many of its rows in memory (for the strategy cache's aggregate, which keeps
# no more); its answer reads the journal.
DATA_KEPT = 10_000


@dataclass
class RunState:
    """How far a run has come; read by progress reports and by the partial result of a failure."""

    steps_total: int
    steps_completed: int = 0
    step: int | None = None  # index of the step running now
    pages: int = 0
    rows: int = 0
    retries: int = 0
    data: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    outputs: dict[str, Any] = field(default_factory=dict[str, Any])
    errors: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    warnings: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    url: str | None = None
    first_url: str | None = None
    tab_id: int | None = None  # the tab the run is pinned to, once known
    started: float = field(default_factory=time.monotonic)
    skipped: list[int] = field(default_factory=list[int])
    telemetry: dict[str, Any] | None = None
    # Steps that typed into a secret field (a recording stores a parameter instead of their text),
    # and the text itself, which is scrubbed from this run's outputs before they are kept or returned.
    secret_steps: list[int] = field(default_factory=list[int])
    secrets: list[str] = field(default_factory=list[str])
    keystroke_at: int | None = None
    meta: dict[str, Any] = field(default_factory=dict[str, Any])  # what steps add to the metadata
    # Extract steps that succeeded: (step index, the step as it ran, the page's URL, rows read), so
    # the strategy cache can register each one.
    extracts: list[tuple[int, Any, str | None, int]] = field(
        default_factory=list[tuple[int, Any, str | None, int]]
    )
    journal: Journal | None = None  # the run's rows on disk (engine/journal.py), page by page
    # While a paginated step runs: (why it is known, pages it will have read at its end, pages read so
    # far), when that can be told (paging.Walk.total); progress reports derive an ETA from it.
    total_of: Callable[[], tuple[str, int, int] | None] | None = None

    def add_rows(
        self,
        rows: list[dict[str, Any]],
        url: str | None,
        *,
        page: bool = True,
        after: str | None = None,
        tab: str | None = None,
    ) -> None:
        """A page's rows join the run's data, and its journal the moment they are read (`after`: the URL
        the page's next link leads to, where a resumed run goes on; `tab`: the tab's page, when this one
        was fetched without moving it)."""
        if self.journal is None:
            self.data += rows
        elif len(self.data) < DATA_KEPT:  # the rest are on disk only: memory stays flat as rows grow
            self.data += rows[: DATA_KEPT - len(self.data)]
        self.rows += len(rows)
        self.pages += page
        if self.journal is not None:
            self.journal.page(self.step or 0, url, rows, self.secrets, after, tab)

    def resume_point(self, max_pages: int | None = None) -> Point | None:
        """Where the running step goes on when this run resumes one that stopped part way (`max_pages`:
        a paginated step's cap)."""
        found = None if self.journal is None else self.journal.recovered
        return None if found is None else found.point(self.step or 0, max_pages)

    def typed_secret(self, text: str, *, keystroke: bool = False) -> None:
        """The running step typed `text` into a secret field. Keystrokes of consecutive steps make one
        text (a password pressed key by key), so that it is what gets scrubbed."""
        index = self.step or 0
        if keystroke and self.keystroke_at == index - 1 and self.secrets:
            self.secrets[-1] += text
        else:
            self.secrets.append(text)
        self.keystroke_at = index if keystroke else None
        if index not in self.secret_steps:
            self.secret_steps.append(index)

    def warn(self, warning: dict[str, str]) -> None:
        """Add a warning once."""
        if warning not in self.warnings and len(self.warnings) < 50:
            self.warnings.append(warning)


class Context:
    """Per-run services for steps: `call` sends a command to the run's tab, with timeout retries."""

    def __init__(
        self,
        browser: Browser,
        state: RunState,
        *,
        tab_id: int | None = None,
        params: dict[str, Any] | None = None,
        recovery: ErrorRecovery | None = None,
        on_progress: Callable[[], None] | None = None,
        allowed_hosts: frozenset[str] | None = None,
        grace_s: float = DEFAULT_GRACE_S,
    ) -> None:
        self.browser = browser
        self.state = state
        self.tab_id = state.tab_id = tab_id
        self.variables: dict[str, Any] = {"params": dict(params or {})}
        self.recovery = recovery or ErrorRecovery()
        self.allowed_hosts = allowed_hosts
        self.grace_s = grace_s
        self._on_progress = on_progress
        self._trace = trace.current()
        self._run = self._trace.new_run() if self._trace is not None else 0
        self._answered: int | None = None  # the run's tab, once a command in it was answered

    def progress(self) -> None:
        """Tell whoever listens that the state moved."""
        if self._on_progress is not None:
            self._on_progress()

    async def call(self, command: Command, timeout_ms: int) -> Any:
        """Run one command in the run's tab; a timeout is retried as error_recovery says."""
        if getattr(command, "tab_id", 0) is None and self.tab_id is not None:
            command = msgspec.structs.replace(command, tab_id=self.tab_id)  # type: ignore[call-arg]
        attempts = self.recovery.retries() + 1
        error = TabPilotError(ErrorCode.TIMEOUT, "no attempt made")
        for attempt in range(attempts):
            try:
                async with asyncio.timeout(timeout_ms / 1000 + self.grace_s):
                    if self._trace is None:
                        value = await self.browser.call(command)
                    else:
                        value = await self._traced(self._trace, command)
            except TimeoutError:
                error = TabPilotError(
                    ErrorCode.TIMEOUT, f"the browser did not answer {_tag(command)} in time", retryable=True
                )
            except TabPilotError as exc:
                if exc.code != ErrorCode.TIMEOUT:
                    raise self._gone(command, exc) from None
                error = exc
                command = self._follow_recovered(command, exc.data)
            else:
                self._note(value)
                return value
            if attempt + 1 < attempts:
                self.state.retries += 1
        raise error

    async def _traced(self, into: trace.Trace, command: Command) -> Any:
        """browser.call, with one trace line for it (TABPILOT_TRACE): what, when, how long, and how
        much of that the extension itself spent."""
        started = time.monotonic()
        error: str | None = None
        trace.note_extension_ms(None)
        try:
            return await self.browser.call(command)
        except TabPilotError as exc:
            error = str(exc.code)
            raise
        except BaseException as exc:  # a timeout or a cancel: still worth a line
            error = type(exc).__name__
            raise
        finally:
            ended = time.monotonic()
            line: dict[str, Any] = {
                "run": self._run,
                "cmd": _tag(command),
                "at": round((started - self.state.started) * 1000, 1),
                "ms": round((ended - started) * 1000, 1),
            }
            ext = trace.take_extension_ms()
            if ext is not None:
                line["ext_ms"] = round(ext, 1)
            tab = getattr(command, "tab_id", None)
            if isinstance(tab, int):
                line["tab"] = tab
            url = getattr(command, "url", None)
            if isinstance(url, str):
                line["url"] = trace.safe_url(url)
            urls = getattr(command, "urls", None)
            if isinstance(urls, list):
                line["urls"] = [trace.safe_url(str(u)) for u in urls]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            if error is not None:
                line["error"] = error
            into.command(**line)

    def _follow_recovered(self, command: Command, data: Any) -> Command:
        """A page stuck in a script is discarded and reloaded under a new tab id: the run moves with it,
        so a retry goes to the reloaded page, not to the id that no longer exists."""
        new = obj(data).get("new_tab_id")
        if not isinstance(new, int):
            return command
        self.tab_id = self.state.tab_id = new
        if getattr(command, "tab_id", None) is not None:
            command = msgspec.structs.replace(command, tab_id=new)  # type: ignore[call-arg]
        return command

    def _gone(self, command: Command, exc: TabPilotError) -> TabPilotError:
        """`exc`, or tab_closed for no tab with the run's own id once a command in it was answered: the
        tab closed between two commands, as one closed during a command says."""
        tab = getattr(command, "tab_id", None)
        if exc.code != ErrorCode.TAB_NOT_FOUND or tab is None or tab != self._answered:
            return exc
        return TabPilotError(
            ErrorCode.TAB_CLOSED, f"tab {tab}, which the run worked in, was closed", data=exc.data
        )

    def _note(self, value: Any) -> None:
        found = obj(value)
        if found:
            url = found.get("url")
            if isinstance(url, str):
                self.state.url = url
                self.state.first_url = self.state.first_url or url
            tab = found.get("tab_id")
            if self.tab_id is None and isinstance(tab, int):
                # Keep the run in the tab it started in even if the user switches tabs meanwhile.
                self.tab_id = self.state.tab_id = tab
        self._answered = self.tab_id


def obj(value: Any) -> dict[str, Any]:
    """A command's answer as an object ({} when it is something else)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def secret_answer(answer: Any) -> bool:
    """Whether a fill/type/press answer says its field holds a secret (a password field, even one the
    page has since switched to type=text, or a redacted one)."""
    found = obj(answer)
    return found.get("secret") is True or found.get("sensitive") is True


def _tag(command: Command) -> str:
    tag = type(command).__struct_config__.tag
    return str(tag)
