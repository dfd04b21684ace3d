"""Typed wire messages: one tagged union per direction, on both the native port and the local socket.

Evolution rules: new fields get defaults, fields are never retyped, unknown fields from a newer peer
are skipped (the extension and the host update separately). Bump PROTOCOL_VERSION only for a change
an older peer would misread.
"""

from __future__ import annotations

from typing import Any

import msgspec

PROTOCOL_VERSION = 1

# Chrome kills a native host that writes one message over 1 MiB; stay well below it per frame.
HOST_TO_CHROME_MAX = 1024 * 1024
# Raw bytes per host->extension chunk: base64 makes 4/3 of it, plus a small envelope.
HOST_CHUNK_RAW = 512 * 1024
# Characters of JSON text per extension->host result chunk (measured fastest around 256 KB).
EXT_CHUNK_CHARS = 256 * 1024
# Chrome refuses an extension->host message over 64 MiB.
CHROME_TO_HOST_MAX = 64 * 1024 * 1024
# Upper bound on one assembled result held in the host's memory.
MAX_RESULT_BYTES = 256 * 1024 * 1024
# Upper bound on one frame on the local socket (a result plus its envelope).
SOCKET_MAX_FRAME = MAX_RESULT_BYTES + 1024 * 1024

NULL = msgspec.Raw(b"null")


class Message(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """Base of every wire message; `type` carries the tag."""


# --- Commands: the bridge sends them to the host, the host forwards them to the extension. ---


class Command(Message):
    """A request with an id that a Result or an Error answers."""

    id: int


class Ping(Command, tag="ping"):
    """Round trip to the extension's service worker."""


class GetStatus(Command, tag="status"):
    """Extension state: pilot toggle, versions, instance."""


class ListTabs(Command, tag="tabs"):
    """Open tabs with id, url, title, active."""


class Navigate(Command, tag="navigate"):
    """Load a URL in a tab and answer with the final URL and title once loaded."""

    url: str
    tab_id: int | None = None
    timeout_ms: int = 30_000


class ExecuteJs(Command, tag="execute_js"):
    """Run the agent's JavaScript in the page: an expression or a function body."""

    script: str
    tab_id: int | None = None
    timeout_ms: int = 5_000


class ExtractScript(Command, tag="extract_script"):
    """Run the agent's extractor: a function body of `root` (the `css_selector` match, else document).

    Result: `{"tab_id", "result": the returned JSON, "redacted": secrets replaced by "[REDACTED]",
    "url"}`. Known secrets (password values, text and values of elements matching the redaction
    selectors) are scrubbed in the page. Errors: script_error (`data`: message, stack, line, column
    within the script; also for an undefined or null result), element_not_found / invalid_selector
    (css_selector), timeout (`data.recovered`), result_too_large, invalid_params.
    """

    script: str
    css_selector: str | None = None
    tab_id: int | None = None
    timeout_ms: int = 10_000


# --- Page commands: one step in one tab, the same for a direct tool call and a workflow step. ---


class Targeted(Command):
    """A command aimed at one element: a snapshot ref (`@e5`) or a CSS selector, in a tab.

    Result: `{"tab_id"}` plus what the action reports (select `selected`, check `checked`/`changed`,
    scroll `scroll_x`/`scroll_y`/`max_y`, highlight `success`/`bounds`). An action that started a
    navigation (click, press, check) answers once the new document has loaded (or at `timeout_ms`,
    then `loaded: false`) with `navigated: true` and the new `url`; a same-document change gives `url`;
    a link that opens another tab gives `opened_tab: {tab_id, url}`.
    Errors: element_not_found, invalid_selector, stale_ref, not_interactable (`data.reason`: hidden,
    disabled, covered, readonly, prevented), invalid_params, timeout, tab_closed.
    """

    ref: str | None = None
    selector: str | None = None
    tab_id: int | None = None
    timeout_ms: int = 5_000


class Snapshot(Command, tag="snapshot"):
    """What a person sees on the page as lean text, with an `@eN` ref for every interactive element.

    Result: `{"text", "cursor_next": int | null, "truncated", "refs": refs in text, "mode": "full" |
    "diff", "url", "title", "tab_id"}`; diff adds `added`/`removed` counts and its text lines start
    with "+ " or "- ". A diff with no earlier snapshot of this document and scope is a full one.
    """

    tab_id: int | None = None
    scope: str | None = None
    max_chars: int = 6_000
    cursor: int = 0
    mode: str = "full"  # "full" | "diff" (changes since this page's previous snapshot)
    timeout_ms: int = 5_000


class MainContent(Command, tag="main_content"):
    """The page's main content as cleaned HTML, for conversion to markdown in the host.

    Result (JSON text): `{"html", "title", "url", "truncated"}`. The page picks `css_selector`'s first
    match, else main / article / [role=main], else the densest block of text; it leaves out navigation,
    page header and footer, asides, hidden elements, dialogs, cookie banners, scripts, styles,
    forms' controls and inline data images, and redacts secrets. `html` stops at `max_bytes`
    characters (`truncated`). An invalid css_selector is invalid_selector; no match is
    element_not_found.
    """

    tab_id: int | None = None
    css_selector: str | None = None
    timeout_ms: int = 10_000
    max_bytes: int = 8 * 1024 * 1024


class Click(Targeted, tag="click"):
    """Click an element as a person would (scrolled into view, checked to be hit-testable)."""

    button: str = "left"
    click_count: int = 1
    modifiers: list[str] = []


class Fill(Targeted, tag="fill", kw_only=True):
    """Clear an input, textarea or contenteditable and type `value` (input and change events fire)."""

    value: str


class TypeText(Targeted, tag="type", kw_only=True):
    """Type `text` at the element (or the focused element) without clearing it first."""

    text: str


class Press(Targeted, tag="press", kw_only=True):
    """Press a key or chord (`Enter`, `Tab`, `Escape`, `Control+a`) on the element or the focused one."""

    key: str


class SelectOption(Targeted, tag="select", kw_only=True):
    """Choose options of a <select> by value or by visible label."""

    values: list[str]


class Check(Targeted, tag="check"):
    """Set a checkbox or radio to `checked` (check and uncheck)."""

    checked: bool = True


class FormField(msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """One field of `fill_form`: a ref or a selector, and its value (a select's option label or value
    or a list of them; a checkbox's or radio's true/false; any other field's text)."""

    ref: str | None = None
    selector: str | None = None
    value: str | bool | int | float | list[str]


class FillForm(Command, tag="fill_form"):
    """Fill several fields in one call, each as what it is (select, check or fill).

    Result: `{"filled": n, "fields": ["fill" | "select" | "check", ...], "tab_id"}`, plus navigation as
    for the element actions. Every target is resolved first (a wrong one changes nothing); a field
    that refuses its value fails with its own code and `data.field`, its index.
    """

    fields: list[FormField]
    tab_id: int | None = None
    timeout_ms: int = 10_000


class Hover(Targeted, tag="hover"):
    """Move the pointer over an element (mouseover/mouseenter/pointermove fire)."""


class Scroll(Targeted, tag="scroll"):
    """Scroll an element into view, or the page (or the element) by dx/dy or to `top`/`bottom`."""

    dx: int = 0
    dy: int = 0
    to: str | None = None


class WaitFor(Command, tag="wait_for"):
    """Wait until a selector is visible/hidden/attached/detached, a text is present, or the URL matches.

    The URL (substring, or a glob with `*`) is waited for first, then the selector or text, in whatever
    document the tab shows by then. Result: `{"tab_id", "url"?, "selector"?, "state"?, "text"?}`;
    `timeout` when it does not happen within `timeout_ms`.
    """

    selector: str | None = None
    state: str = "visible"
    text: str | None = None
    url: str | None = None
    tab_id: int | None = None
    timeout_ms: int = 10_000


class Highlight(Targeted, tag="highlight"):
    """Draw the fixed red overlay over an element for `duration_ms`; answer its bounds."""

    duration_ms: int = 5_000


class History(Command, tag="history"):
    """Go `back` or `forward` in a tab's history, or `reload` it, and wait for the load."""

    op: str
    tab_id: int | None = None
    timeout_ms: int = 30_000


class Screenshot(Targeted, tag="screenshot"):
    """Capture the tab (or one element, or the full page), downscaled to `max_width`."""

    full_page: bool = False
    format: str = "jpeg"
    quality: int = 70
    max_width: int = 1280


class NewTab(Command, tag="new_tab"):
    """Open a tab (on `url`, waiting for its load, or blank) and answer its id, URL and title."""

    url: str | None = None
    active: bool = True
    timeout_ms: int = 30_000


class SwitchTab(Command, tag="switch_tab"):
    """Make a tab the active one in its window and focus the window."""

    tab_id: int


class CloseTab(Command, tag="close_tab"):
    """Close a tab (default: the one commands go to)."""

    tab_id: int | None = None


class TrackTab(Command, tag="track_tab"):
    """Send commands without a tab_id to this tab (default: the active one); `track=False` stops that."""

    tab_id: int | None = None
    track: bool = True


class AddRedaction(Command, tag="add_redaction"):
    """Redact elements matching these CSS selectors too (in every page output). The agent can add to
    the user's list, never remove from it; only the popup edits the user's own list."""

    selectors: list[str]


class AddSecretPattern(Command, tag="add_secret_pattern"):
    """Mask text matching these regular expressions too (secret-shaped text, in every page output and
    screenshot). The agent can add to the user's pattern list, never remove from it."""

    patterns: list[str]


class BrowserState(Command, tag="state"):
    """Save, load, list or delete a named snapshot of a site's storage and cookies (values stay in the
    extension: answers carry names, URL, time, sizes and counts only)."""

    op: str  # "save" | "load" | "list" | "delete"
    name: str | None = None
    include_url: bool = True
    tab_id: int | None = None
    timeout_ms: int = 30_000


class Telemetry(Command, tag="telemetry"):
    """Console errors (`kind` "errors") or network requests ("network") a tab recorded after `since`."""

    kind: str
    since: int = 0
    limit: int = 100
    tab_id: int | None = None


class Count(Command, tag="count"):
    """How many elements match a selector, and how many of them are visible: `{count, visible}`."""

    selector: str
    tab_id: int | None = None
    timeout_ms: int = 5_000


class FieldPlan(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One compiled schema field: what the page reads for it from each row.

    `selector` "" means the row element itself. `take` is text | html | attr | url (an attribute as an
    absolute URL; `attr` names it, default href/src). `all` gives every match as a list. Type
    conversions (number, boolean) happen in the host; redaction happens in the page.
    """

    name: str
    selector: str = ""
    take: str = "text"
    attr: str | None = None
    all: bool = False


class Extract(Command, tag="extract"):
    """Apply compiled fields to every element matching `selector`; rows come back as value arrays.

    Result: `{"rows": [[value per field, in order], ...], "count": matched, "warnings": [{"field",
    "message"}], "url", "type"}` (`type`: the document's content type); a value is a string, null, or
    a list of strings for `all`. At most `limit` rows; `count` is every match. No match gives
    `rows: []`. An invalid `selector` is invalid_selector; an invalid field selector makes that field
    null in every row with one warning.
    """

    selector: str
    fields: list[FieldPlan]
    tab_id: int | None = None
    timeout_ms: int = 10_000
    limit: int | None = None
    # A virtualised grid is scrolled through and read whole (`"virtual": {rows, scrolls, complete}`
    # in the result): null when the rows carry a row index and scroll in a box of their own.
    virtual: bool | None = None
    # A grid's read that ran out of time answers `"virtual": {..., "resume": true}` and no rows; the
    # page keeps what it read, and the same command with resume goes on from there.
    resume: bool = False


class Suggest(Command, tag="suggest"):
    """Find the page's repeated records (tables, lists, card grids, definition lists, repeated divs).

    Result: `{"candidates": [{"kind", "selector", "fields": [FieldPlan], "converts": {name: "number"},
    "rows", "sample": [[value per field], ...], "next_selector"?, "score"}], "skeleton": {"selector",
    "html", "bytes", "truncated"}, "elements", "duration_ms", "url"}`, best candidate first; `sample`
    holds the first rows read exactly as `extract` reads them (redacted). `css_selector` limits the
    search to one region (element_not_found when nothing matches); `query` words raise candidates
    whose headers, classes or text mention them.
    """

    query: str | None = None
    css_selector: str | None = None
    max_candidates: int = 5
    skeleton_bytes: int = 8_000
    tab_id: int | None = None
    timeout_ms: int = 10_000


class Paginate(Command, tag="paginate"):
    """Activate the next-page control and wait for a navigation or for the row set to change.

    Result: `{"outcome": "navigated" | "redrawn" | "end", "reason", "url"}`. For `end` the reason is
    "missing" (no visible control), "disabled" or "unchanged" (clicked, nothing changed within
    `timeout_ms`); for `navigated` it is "redirected" when the server redirected the new page's
    request (e.g. to a login page; `url` is where it landed), else null; for `redrawn` null.
    """

    next_selector: str
    row_selector: str
    tab_id: int | None = None
    timeout_ms: int = 10_000


class ScrollLoad(Command, tag="scroll_load"):
    """Scroll to the end and wait for more rows (or a visible `until_selector`) to appear.

    Result: `{"before": rows, "after": rows, "until_found": bool}`; after == before when nothing came
    (not an error): within `timeout_ms`, or, with `quiet_ms`, once no row arrived and no request of
    the tab was in flight for that long after the scroll. Without `until_selector`, the feed's own
    end notice ("No more posts") showing up after the rows counts: `until_found` and `end_notice` true.
    """

    row_selector: str
    until_selector: str | None = None
    quiet_ms: int | None = None
    tab_id: int | None = None
    timeout_ms: int = 5_000


class Cancel(Command, tag="cancel"):
    """Stop the command whose id is `target`, if it is still running."""

    target: int


class HostInfo(Command, tag="host_info"):
    """Bridge -> host only: who is this host and which browser it serves."""


# --- Bridge -> host only: served by the host's scrape engine, never forwarded to the extension. ---


class Scrape(Command, tag="scrape"):
    """Run a scrape (`request` holds the interact scrape arguments); answer within `wait_ms` with the
    result or with `{status: "running", correlation_id}`. `progress` asks for Progress messages."""

    request: dict[str, Any]
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


# --- Extension -> host ---


class Hello(Message, tag="hello"):
    """First message of the extension on a new native port."""

    protocol: int
    extension_version: str
    instance_id: str
    browser_name: str = ""
    browser_version: str = ""
    label: str = ""
    profile: str = ""
    pilot: bool = False


class Result(Message, tag="result"):
    """Success answer to a command. `value_json` lets a sender pass JSON text it already has."""

    id: int
    value: msgspec.Raw = NULL
    value_json: str | None = None


class ResultChunk(Message, tag="result_chunk"):
    """One piece of the JSON text of a large result; the piece with `final` completes it."""

    id: int
    seq: int
    data: str
    final: bool = False


class Error(Message, tag="error"):
    """Failure answer to a command (or, with no id, to a message the sender could not read)."""

    code: str
    message: str
    id: int | None = None
    retryable: bool = False
    data: Any = None


class Event(Message, tag="event"):
    """Unsolicited news from the extension, e.g. the pilot toggle changed."""

    name: str
    data: Any = None


class Progress(Message, tag="progress"):
    """Host -> bridge: how far a long command (id) has come; the Result or Error still ends it."""

    id: int
    progress: float
    total: float | None = None
    message: str = ""


# --- Host -> extension only ---


class Welcome(Message, tag="welcome", omit_defaults=False):
    """The host's answer to Hello. `accepted` is false on a protocol mismatch."""

    protocol: int
    host_version: str
    accepted: bool = True
    message: str = ""


class Chunk(Message, tag="chunk"):
    """One base64 piece of a host->extension message too big for one native frame."""

    id: int
    seq: int
    data: str
    final: bool = False


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
    | Suggest
    | Paginate
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
)
ToExtension = Welcome | Chunk | ExtensionCommand
FromExtension = Hello | Result | ResultChunk | Error | Event
HostCommand = HostInfo | Scrape | JobResult | CancelJob | WorkflowOp | ExtractionOp
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
    Suggest,
    Paginate,
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
)


HOST_COMMANDS: tuple[type[Command], ...] = (HostInfo, Scrape, JobResult, CancelJob, WorkflowOp, ExtractionOp)


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


def result_value(result: Result) -> msgspec.Raw:
    """The JSON value of a Result, whichever field carried it."""
    if result.value_json is not None:
        return msgspec.Raw(result.value_json.encode())
    return result.value


def tag_of(cls: type[Message]) -> str:
    """The `type` string of a message class."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag
