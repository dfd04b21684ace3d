"""interact's element actions: click, fill, fill_form, type, press, select, check, uncheck, hover,
scroll, wait_for, highlight.

Each action runs one extension command; the same commands are the workflow engine's steps. After an
action the agent can ask for the page again in the same call (`snapshot`): "diff" costs only the
changed lines, so it is the default for click and press, the actions whose effect the agent cannot
predict; the others default to "none".
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire import messages as m
from ..base import Call
from ..snapshots import PageSnapshot, SnapshotMode, take

Ref = Annotated[str | None, Field(description="Element ref from a page snapshot, e.g. @e5.")]
Selector = Annotated[str | None, Field(description="CSS selector (the first match); instead of ref.")]


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


# The default snapshot after an action that loaded a new page: its top, not the whole page (a diff
# against a new document is all of it). observe what=page reads on from cursor_next.
LEAN_AFTER_NAVIGATION = 1_200


async def _act(
    call: Call, command: m.Command, snapshot: str | None, default: str = "none"
) -> PageActionResult:
    value: dict[str, Any] = await call.send(command)
    out: PageActionResult = value  # type: ignore[assignment]  # the extension's JSON, shaped as above
    mode = snapshot or default
    if mode != "none":
        tab = value.get("tab_id")
        tab_id = tab if isinstance(tab, int) else None
        if snapshot is None and value.get("navigated"):
            out["snapshot"] = await take(call, tab_id=tab_id, mode="full", max_chars=LEAN_AFTER_NAVIGATION)
        else:
            out["snapshot"] = await take(call, tab_id=tab_id, mode=mode)
    return out


async def click(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    button: Literal["left", "middle", "right"] = "left",
    click_count: Annotated[int, Field(ge=1, le=3)] = 1,
    modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] | None = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode | None = None,
) -> PageActionResult:
    """click the element (ref or selector); if that navigates, waits for the new page (navigated, url);
    a link to a new tab gives opened_tab."""
    cmd = m.Click(
        id=0,
        ref=ref,
        selector=selector,
        button=button,
        click_count=click_count,
        modifiers=list(modifiers or []),
        tab_id=tab_id,
        timeout_ms=timeout_ms,
    )
    return await _act(call, cmd, snapshot, "diff")


async def fill(
    call: Call,
    value: Annotated[str, Field(description="fill: the new value of the field.")],
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """clear the input, textarea or editable element and type value (input and change events fire)."""
    cmd = m.Fill(id=0, value=value, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def fill_form(
    call: Call,
    fields: Annotated[
        list[FormField],
        Field(
            min_length=1,
            max_length=100,
            description="[{ref|selector, value}]; a checkbox takes true/false.",
        ),
    ],
    tab_id: int | None = None,
    timeout_ms: int = 10_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """fill several fields in one call (text, select, checkbox, radio); an error names its data.field."""
    parts = [m.FormField(ref=f.get("ref"), selector=f.get("selector"), value=f["value"]) for f in fields]
    cmd = m.FillForm(id=0, fields=parts, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def type(  # the action's name as the agent calls it
    call: Call,
    text: str,
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """type text at the end of the element's value (or into the focused element)."""
    cmd = m.TypeText(id=0, text=text, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def press(
    call: Call,
    key: Annotated[str, Field(description="Key or chord: Enter, Tab, Escape, ArrowDown, Control+a.")],
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode | None = None,
) -> PageActionResult:
    """press a key on the element or the focused one (Enter submits a form, Tab moves focus)."""
    cmd = m.Press(id=0, key=key, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot, "diff")


async def select(
    call: Call,
    values: Annotated[list[str], Field(description="select: option values or visible labels.")],
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """choose options of a select by value or label (several for a multi-select)."""
    cmd = m.SelectOption(
        id=0, values=values, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms
    )
    return await _act(call, cmd, snapshot)


async def check(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """check a checkbox or radio (no change if it already is)."""
    cmd = m.Check(id=0, checked=True, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def uncheck(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """uncheck a checkbox."""
    cmd = m.Check(id=0, checked=False, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def hover(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """move the pointer over the element (mouse events fire; CSS :hover does not apply)."""
    cmd = m.Hover(id=0, ref=ref, selector=selector, tab_id=tab_id, timeout_ms=timeout_ms)
    return await _act(call, cmd, snapshot)


async def scroll(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    dx: int = 0,
    dy: int = 0,
    to: Literal["top", "bottom"] | None = None,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """scroll the element into view; with dx/dy or to=top or bottom, scroll it (or the page) instead."""
    cmd = m.Scroll(
        id=0, ref=ref, selector=selector, dx=dx, dy=dy, to=to, tab_id=tab_id, timeout_ms=timeout_ms
    )
    return await _act(call, cmd, snapshot)


async def wait_for(
    call: Call,
    selector: Selector = None,
    state: Literal["visible", "hidden", "attached", "detached"] = "visible",
    text: str | None = None,
    url: str | None = None,
    tab_id: int | None = None,
    timeout_ms: int = 10_000,
    snapshot: SnapshotMode = "none",
) -> PageActionResult:
    """wait until the URL matches, then a selector reaches state or a text is shown; timeout error."""
    cmd = m.WaitFor(
        id=0, selector=selector, state=state, text=text, url=url, tab_id=tab_id, timeout_ms=timeout_ms
    )
    return await _act(call, cmd, snapshot)


async def highlight(
    call: Call,
    ref: Ref = None,
    selector: Selector = None,
    duration_ms: Annotated[int, Field(ge=1, le=600_000)] = 5_000,
    tab_id: int | None = None,
    timeout_ms: int = 5_000,
) -> PageActionResult:
    """outline the element in red for the human for duration_ms; returns its bounds."""
    cmd = m.Highlight(
        id=0, ref=ref, selector=selector, duration_ms=duration_ms, tab_id=tab_id, timeout_ms=timeout_ms
    )
    return await _act(call, cmd, "none")


ACTIONS = (click, fill, fill_form, type, press, select, check, uncheck, hover, scroll, wait_for, highlight)
