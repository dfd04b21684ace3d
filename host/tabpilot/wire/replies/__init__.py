"""Typed replies: one struct per extension command, decoded in the host with `decode_reply`.

`REPLIES` pairs each command with its reply; jsgen writes JSDoc typedefs of them into protocol.js.
"""

from __future__ import annotations

from .. import messages as m
from .actions import ActionReply, Bounds, FillFormReply, OpenedTab, ScreenshotReply, WaitForReply
from .base import Reply, TabReply, decode_reply
from .reading import (
    Candidate,
    CountReply,
    ExtractReply,
    FieldWarning,
    MainContentReply,
    PaginateReply,
    ScrollLoadReply,
    Skeleton,
    SnapshotReply,
    SuggestReply,
    VirtualRead,
)
from .scripts import ExecuteJsReply, ExtractScriptReply
from .session import (
    AddRedactionReply,
    AddSecretPatternReply,
    BrowserStateReply,
    CancelReply,
    PingReply,
    StatusReply,
    TabInfo,
    TabsReply,
    TelemetryReply,
)
from .tabs import CloseTabReply, PageLoadedReply, TrackTabReply

REPLIES: dict[type[m.Command], type[Reply]] = {
    m.Ping: PingReply,
    m.GetStatus: StatusReply,
    m.ListTabs: TabsReply,
    m.Navigate: PageLoadedReply,
    m.ExecuteJs: ExecuteJsReply,
    m.ExtractScript: ExtractScriptReply,
    m.Cancel: CancelReply,
    m.Count: CountReply,
    m.Extract: ExtractReply,
    m.Suggest: SuggestReply,
    m.Paginate: PaginateReply,
    m.ScrollLoad: ScrollLoadReply,
    m.Snapshot: SnapshotReply,
    m.MainContent: MainContentReply,
    m.Click: ActionReply,
    m.Fill: ActionReply,
    m.TypeText: ActionReply,
    m.Press: ActionReply,
    m.SelectOption: ActionReply,
    m.Check: ActionReply,
    m.FillForm: FillFormReply,
    m.Hover: ActionReply,
    m.Scroll: ActionReply,
    m.WaitFor: WaitForReply,
    m.Highlight: ActionReply,
    m.History: PageLoadedReply,
    m.NewTab: PageLoadedReply,
    m.SwitchTab: PageLoadedReply,
    m.CloseTab: CloseTabReply,
    m.TrackTab: TrackTabReply,
    m.AddRedaction: AddRedactionReply,
    m.AddSecretPattern: AddSecretPatternReply,
    m.Screenshot: ScreenshotReply,
    m.BrowserState: BrowserStateReply,
    m.Telemetry: TelemetryReply,
}

__all__ = [
    "REPLIES",
    "ActionReply",
    "AddRedactionReply",
    "AddSecretPatternReply",
    "Bounds",
    "BrowserStateReply",
    "CancelReply",
    "Candidate",
    "CloseTabReply",
    "CountReply",
    "ExecuteJsReply",
    "ExtractReply",
    "ExtractScriptReply",
    "FieldWarning",
    "FillFormReply",
    "MainContentReply",
    "OpenedTab",
    "PageLoadedReply",
    "PaginateReply",
    "PingReply",
    "Reply",
    "ScreenshotReply",
    "ScrollLoadReply",
    "Skeleton",
    "SnapshotReply",
    "StatusReply",
    "SuggestReply",
    "TabInfo",
    "TabReply",
    "TabsReply",
    "TelemetryReply",
    "TrackTabReply",
    "VirtualRead",
    "WaitForReply",
    "decode_reply",
]
