"""The unions per direction, the command registries and the shared encoder and decoders."""

from __future__ import annotations

import msgspec

from .actions import (
    Check,
    Click,
    Fill,
    FillForm,
    Highlight,
    Hover,
    Press,
    Screenshot,
    Scroll,
    SelectOption,
    TypeText,
    WaitFor,
)
from .ask import AskSecret
from .base import Command
from .detail import ExtractTab, FetchDetails, ReleaseTabs
from .envelope import Chunk, Error, Event, Hello, Progress, Result, ResultChunk, Welcome
from .reading import Count, Extract, FetchExtract, MainContent, Paginate, ScrollLoad, Snapshot, Suggest
from .scripts import ExecuteJs, ExtractScript
from .session import (
    AddRedaction,
    AddSecretPattern,
    BrowserState,
    Cancel,
    GetStatus,
    ListTabs,
    Ping,
    Telemetry,
)
from .tabs import CloseTab, History, Navigate, NewTab, SwitchTab, TrackTab
from .to_host import CancelJob, ExtractionOp, HostInfo, JobResult, ResultRows, Scrape, WorkflowOp

# Each command joins the unions (and EXTENSION_COMMANDS) together with its extension handler.
ExtensionCommand = (
    Ping
    | GetStatus
    | ListTabs
    | Navigate
    | ExecuteJs
    | ExtractScript
    | Cancel
    | Count
    | Extract
    | ExtractTab
    | FetchDetails
    | ReleaseTabs
    | Suggest
    | Paginate
    | FetchExtract
    | ScrollLoad
    | Snapshot
    | MainContent
    | Click
    | Fill
    | TypeText
    | Press
    | SelectOption
    | Check
    | FillForm
    | Hover
    | Scroll
    | WaitFor
    | Highlight
    | History
    | NewTab
    | SwitchTab
    | CloseTab
    | TrackTab
    | AddRedaction
    | AddSecretPattern
    | Screenshot
    | BrowserState
    | Telemetry
    | AskSecret
)
ToExtension = Welcome | Chunk | ExtensionCommand
FromExtension = Hello | Result | ResultChunk | Error | Event
HostCommand = HostInfo | Scrape | JobResult | CancelJob | ResultRows | WorkflowOp | ExtractionOp
ToHost = HostCommand | ExtensionCommand
FromHost = Result | Error | Event | Progress

EXTENSION_COMMANDS: tuple[type[Command], ...] = (
    Ping,
    GetStatus,
    ListTabs,
    Navigate,
    ExecuteJs,
    ExtractScript,
    Cancel,
    Count,
    Extract,
    ExtractTab,
    FetchDetails,
    ReleaseTabs,
    Suggest,
    Paginate,
    FetchExtract,
    ScrollLoad,
    Snapshot,
    MainContent,
    Click,
    Fill,
    TypeText,
    Press,
    SelectOption,
    Check,
    FillForm,
    Hover,
    Scroll,
    WaitFor,
    Highlight,
    History,
    NewTab,
    SwitchTab,
    CloseTab,
    TrackTab,
    AddRedaction,
    AddSecretPattern,
    Screenshot,
    BrowserState,
    Telemetry,
    AskSecret,
)


HOST_COMMANDS: tuple[type[Command], ...] = (
    HostInfo,
    Scrape,
    JobResult,
    CancelJob,
    ResultRows,
    WorkflowOp,
    ExtractionOp,
)


class _IdOnly(msgspec.Struct):
    id: int | None = None
    type: str | None = None


encoder = msgspec.json.Encoder()
to_extension_decoder = msgspec.json.Decoder(ToExtension)
from_extension_decoder = msgspec.json.Decoder(FromExtension)
to_host_decoder = msgspec.json.Decoder(ToHost)
from_host_decoder = msgspec.json.Decoder(FromHost)
_id_decoder = msgspec.json.Decoder(_IdOnly)


def peek(payload: bytes) -> tuple[int | None, str | None]:
    """Best-effort id and type of a message that did not decode, so an error can still answer it."""
    try:
        found = _id_decoder.decode(payload)
    except (msgspec.DecodeError, RecursionError):
        return None, None
    return found.id, found.type
