"""Bridge -> host only: served by the host itself (its scrape engine, workflows, strategy cache),
never forwarded to the extension."""

from __future__ import annotations

import msgspec

from ..scrape import ScrapeRequest
from .base import Command


class HostInfo(Command, tag="host_info"):
    """Bridge -> host only: who is this host and which browser it serves."""


class Scrape(Command, tag="scrape"):
    """Run a scrape (`request`: the interact scrape arguments); answer within `wait_ms` with the
    result or with `{status: "running", correlation_id}`. `progress` asks for Progress messages."""

    request: ScrapeRequest
    wait_ms: int = 20_000
    progress: bool = False


class JobResult(Command, tag="command_result"):
    """The result (or progress) of a scrape by correlation id, waiting up to `wait_ms` for the end."""

    correlation_id: str
    wait_ms: int = 0
    progress: bool = False


class CancelJob(Command, tag="cancel_job"):
    """Stop a scrape; the answer is its result with the data it had."""

    correlation_id: str


class ResultRows(Command, tag="result_rows"):
    """Rows `offset`.. of a scrape's result as its journal holds them (the result of a run too big to
    answer inline): at most `limit` rows and `max_bytes` of JSON."""

    correlation_id: str
    offset: int = 0
    limit: int = 1_000
    max_bytes: int = 262_144


class WorkflowOp(Command, tag="workflow_op"):
    """Recorded workflows: `op` list | get | import (`document`: exported JSON text) | delete."""

    op: str
    workflow_id: str | None = None
    document: str | None = None


class ExtractionOp(Command, tag="extraction_op"):
    """The strategy cache: `op` strategies (list) | aggregate (`extraction_id`'s merged rows) |
    clear_aggregate (one `extraction_id`, or all when it is omitted)."""

    op: str
    extraction_id: str | None = None


class BrowserInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What a host tells a bridge about itself and the browser it serves (the HostInfo result)."""

    instance_id: str
    label: str = ""
    profile: str = ""
    browser_name: str = ""
    browser_version: str = ""
    extension_version: str = ""
    protocol: int = 0
    protocol_ok: bool = True
    host_version: str = ""
    pilot: bool = False
    pid: int = 0
    connected_at: float = 0.0


# Each command joins the unions (and EXTENSION_COMMANDS) together with its extension handler.
