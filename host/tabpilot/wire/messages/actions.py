"""Page commands aimed at one element (or the focused one): one step in one tab, the same for a
direct tool call and a workflow step."""

from __future__ import annotations

import msgspec

from ..timer import TimeoutMs
from .base import Command


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
    timeout_ms: TimeoutMs = 5_000


class Click(Targeted, tag="click"):
    """Click an element as a person would (scrolled into view, checked to be hit-testable)."""

    button: str = "left"
    click_count: int = 1
    modifiers: list[str] = []  # noqa: RUF012 - a Struct (base in base.py); msgspec copies it per instance


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
    timeout_ms: TimeoutMs = 10_000


class Hover(Targeted, tag="hover"):
    """Move the pointer over an element (mouseover/mouseenter/pointermove fire)."""


class Scroll(Targeted, tag="scroll"):
    """Scroll an element into view, or the page (or the element) by dx/dy or to `top`/`bottom`."""

    dx: int = 0
    dy: int = 0
    to: str | None = None


class Highlight(Targeted, tag="highlight"):
    """Draw the fixed red overlay over an element for `duration_ms`; answer its bounds."""

    duration_ms: int = 5_000


class Screenshot(Targeted, tag="screenshot"):
    """Capture the tab (or one element, or the full page), downscaled to `max_width`."""

    full_page: bool = False
    format: str = "jpeg"
    quality: int = 70
    max_width: int = 1280


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
    timeout_ms: TimeoutMs = 10_000
