"""interact's element actions: click, fill, fill_form, type, press, select, check, uncheck, hover,
scroll, wait_for, highlight.

Each one sends one extension command (the same commands are the workflow engine's steps) and is
declared from that command's wire struct (`fromwire`): the struct's fields are the action's
arguments, and `FIELDS` says what the agent reads about a field beyond its wire type. After an
action the agent can ask for the page again in the same call (`snapshot`): "diff" costs only the
changed lines, so it is the default for click and press, the actions whose effect the agent cannot
predict; the others default to "none".
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire import messages as m
from ....wire.replies import REPLIES, ActionReply, TabReply, decode_reply
from ..base import Call
from ..composite import Action
from ..fromwire import from_struct
from ..snapshots import PageSnapshot, SnapshotMode, take


class Bounds(TypedDict):
    x: int
    y: int
    width: int
    height: int


class OpenedTab(TypedDict):
    tab_id: int
    url: str


class FormField(TypedDict):
    ref: NotRequired[str]
    selector: NotRequired[str]
    value: str | bool | int | float | list[str]


class PageActionResult(TypedDict):
    tab_id: NotRequired[int]
    navigated: NotRequired[bool]
    url: NotRequired[str]
    loaded: NotRequired[bool]
    navigation_error: NotRequired[str]
    opened_tab: NotRequired[OpenedTab]
    selected: NotRequired[list[str]]
    checked: NotRequired[bool]
    changed: NotRequired[bool]
    scroll_x: NotRequired[int]
    scroll_y: NotRequired[int]
    max_y: NotRequired[int]
    selector: NotRequired[str]
    state: NotRequired[str]
    text: NotRequired[str]
    success: NotRequired[bool]
    bounds: NotRequired[Bounds]
    filled: NotRequired[int]
    fields: NotRequired[list[str]]
    snapshot: NotRequired[PageSnapshot]


# The default snapshot after an action that loaded a new page (a diff against a new document is all
# of it): the new page's main content first, then the rest (navigation, header, footer), in this
# budget; observe {what: "page", mode: "main", cursor: cursor_next} reads on.
AFTER_NAVIGATION = 4_000


async def _act(
    call: Call, command: m.Command, snapshot: str | None, default: str = "none"
) -> PageActionResult:
    value: dict[str, Any] = await call.send(command)
    # The extension's JSON is checked against the command's reply struct (malformed_reply if it does
    # not fit) and passed on as it came, so the agent sees every field it sent.
    reply = decode_reply(REPLIES.get(type(command), ActionReply), value)
    out: PageActionResult = value  # type: ignore[assignment]  # shaped as above: checked just now
    mode = snapshot or default
    if mode != "none":
        tab_id = reply.tab_id if isinstance(reply, TabReply) else None
        if snapshot is None and isinstance(reply, ActionReply) and reply.navigated:
            out["snapshot"] = await take(call, tab_id=tab_id, mode="main", max_chars=AFTER_NAVIGATION)
        else:
            out["snapshot"] = await take(call, tab_id=tab_id, mode=mode)
    return out


# What the agent reads about a command's field beyond its wire type: choices, bounds, a description.
# One entry per name, so a field reads the same in every action; `fromwire` refuses an entry that
# means something else on the wire than the field it refines.
FIELDS: dict[str, Any] = {
    "ref": Annotated[str | None, Field(description="Element ref from a page snapshot, e.g. @e5.")],
    "selector": Annotated[str | None, Field(description="CSS selector (the first match); instead of ref.")],
    "button": Annotated[Literal["left", "middle", "right"], Field(description="click: the mouse button.")],
    "click_count": Annotated[int, Field(ge=1, le=3, description="click: 2 for a double click.")],
    "modifiers": Annotated[
        list[Literal["Alt", "Control", "Meta", "Shift"]], Field(description="click: keys held down.")
    ],
    "value": Annotated[str, Field(description="fill: the new value of the field.")],
    "fields": Annotated[
        list[FormField],
        Field(
            min_length=1, max_length=100, description="[{ref|selector, value}]; a checkbox takes true/false."
        ),
    ],
    "key": Annotated[str, Field(description="Key or chord: Enter, Tab, Escape, ArrowDown, Control+a.")],
    "values": Annotated[list[str], Field(description="select: option values or visible labels.")],
    "dx": Annotated[int, Field(description="scroll: pixels right (negative: left), of the element or page.")],
    "dy": Annotated[int, Field(description="scroll: pixels down (negative: up), of the element or page.")],
    "to": Annotated[Literal["top", "bottom"], Field(description="scroll: to the top or the bottom.")],
    "state": Annotated[
        Literal["visible", "hidden", "attached", "detached"],
        Field(description="wait_for: the state the selector's element must reach; default visible."),
    ],
    "duration_ms": Annotated[int, Field(ge=1, le=600_000, description="highlight: how long it shows.")],
}


def _element(
    command: type[m.Command],
    summary: str,
    *,
    default: Literal["none", "diff"] | None = "none",
    name: str | None = None,
    fixed: dict[str, Any] | None = None,
) -> Action:
    """The action sending `command`; `default` is its page snapshot when none is asked for (None: the
    action takes no `snapshot`)."""

    async def run(call: Call, cmd: m.Command, snapshot: str | None = None) -> PageActionResult:
        return await _act(call, cmd, snapshot, default or "none")

    extra = {} if default is None else {"snapshot": SnapshotMode}
    return from_struct(
        command, summary, run, PageActionResult, refine=FIELDS, extra=extra, fixed=fixed, name=name
    )


ACTIONS = (
    _element(
        m.Click,
        "click the element (ref or selector); if that navigates, waits for the new page (navigated, url); "
        "a link to a new tab gives opened_tab.",
        default="diff",
    ),
    _element(
        m.Fill, "clear the input, textarea or editable element and type value (input and change events fire)."
    ),
    _element(
        m.FillForm,
        "fill several fields in one call (text, select, checkbox, radio); an error names its data.field.",
    ),
    _element(m.TypeText, "type text at the end of the element's value (or into the focused element)."),
    _element(
        m.Press,
        "press a key on the element or the focused one (Enter submits a form, Tab moves focus).",
        default="diff",
    ),
    _element(m.SelectOption, "choose options of a select by value or label (several for a multi-select)."),
    _element(m.Check, "check a checkbox or radio (no change if it already is).", fixed={"checked": True}),
    _element(m.Check, "uncheck a checkbox.", name="uncheck", fixed={"checked": False}),
    _element(m.Hover, "move the pointer over the element (mouse events fire; CSS :hover does not apply)."),
    _element(
        m.Scroll,
        "scroll the element into view; with dx/dy or to=top or bottom, scroll it (or the page) instead.",
    ),
    _element(
        m.WaitFor,
        "wait until the URL matches, then a selector reaches state or a text is shown; timeout error.",
    ),
    _element(
        m.Highlight,
        "outline the element in red for the human for duration_ms; returns its bounds.",
        default=None,
    ),
)
