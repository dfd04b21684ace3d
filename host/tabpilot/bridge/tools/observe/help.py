"""observe what=help: each workflow step's fields and the objects they hold, generated from the step
definitions themselves (so they cannot drift), and how a recorded workflow copes with a login page.
Answered by the bridge alone: no browser needed."""

from __future__ import annotations

from typing import Any

import msgspec
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire import fields
from ....wire.scrape import Condition, ErrorRecovery, ExtractOptions, Options, PaginateOptions, ScrollOptions
from ..base import Call

NOTES = [
    "A workflow is {operation: workflow, steps: [{type, ...fields}], params?, options?, error_recovery?}.",
    "Strings may use {{params.x}} (from params) and {{name}} (the output of an earlier step's save_as).",
    "A step with if/unless runs only when its condition holds ({exists: css} or {visible: css}); "
    "params are needed only by steps that run.",
    "Login bounce: a navigate that lands on a login page goes on when a later step's `if` holds there "
    '(the login steps, e.g. if: {exists: "#id_username"}), else it is navigation_redirect; '
    "navigate allow_redirect: true accepts any landing page.",
    "An extract step takes the extract operation's options shape: options: {paginate, scroll, where, ...}.",
    "options.delay_ms pauses between steps for politeness (default 0): steps wait for their own conditions.",
    "paginate: a same-origin Next link is fetched and parsed in the page once page 1 reads the same that "
    "way (metadata.pagination_mode fetch; the tab stays on page 1), else the tab follows the pages; "
    "paginate.delay_ms (default 0) pauses between pages for politeness.",
]


class HelpResult(TypedDict):
    steps: dict[str, Any]
    every_step: dict[str, str]
    objects: dict[str, Any]
    notes: list[str]


def _steps() -> dict[str, Any]:
    from ....engine.steps import STEP_TYPES, StepBase  # the whole engine: only when asked

    common = {f.encode_name for f in msgspec.structs.fields(StepBase)}
    out: dict[str, Any] = {}
    for cls in STEP_TYPES:
        ref = fields.reference(cls)
        ref["fields"] = {k: v for k, v in ref["fields"].items() if k not in common}
        out[str(cls.__struct_config__.tag)] = ref
    return out


async def help(call: Call) -> HelpResult:  # the action's name as the agent calls it
    """workflow step fields; replays after a login bounce; navigate allow_redirect."""
    from ....engine.steps import StepBase

    objects = (Condition, ExtractOptions, PaginateOptions, ScrollOptions, Options, ErrorRecovery)
    return {
        "steps": _steps(),
        "every_step": fields.reference(StepBase)["fields"],
        "objects": {cls.__name__: fields.reference(cls) for cls in objects},
        "notes": NOTES,
    }
