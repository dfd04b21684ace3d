"""observe what=help: what tools/list leaves out to stay small. `about` an action (of any tool) gives its
arguments, each with its type, default and description; `about` a tool gives all of its actions; no
`about` gives each workflow step's fields and the objects they hold; `where` and `follow` explain those
options. All of it is generated from the tool and step definitions themselves (so it cannot drift), and
answered by the bridge alone: no browser needed."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from pydantic import Field

from ....wire import fields
from ....wire.echo import nearest, show
from ....wire.errors import ErrorCode, TabPilotError
from ....wire.scrape import (
    Condition,
    ErrorRecovery,
    ExtractOptions,
    Follow,
    Options,
    PaginateOptions,
    ScrollOptions,
)
from ..base import Call

NOTES = [
    "A workflow is {operation: workflow, steps: [{type, ...fields}], params?, options?, error_recovery?}.",
    "Strings may use {{params.x}} (from params) and {{name}} (the output of an earlier step's save_as).",
    "A step with if/unless runs only when its condition holds ({exists: css} or {visible: css}); "
    "params are needed only by steps that run.",
    "Login bounce: a navigate that lands on a login page goes on when a later step's `if` holds there "
    '(the login steps, e.g. if: {exists: "#id_username"}), else it is navigation_redirect; '
    "navigate allow_redirect: true accepts any landing page.",
    "Secret params (a password: recordings never store them): a replay that needs one asks the person "
    "through the client when it can; else missing_params names it, and the agent asks the person. "
    "No field is filled before every param the steps about to run need is at hand.",
    "An extract step takes the extract operation's options shape: options: {paginate, scroll, where, ...}.",
    "options.delay_ms pauses between steps for politeness (default 0): steps wait for their own conditions.",
    "paginate: a same-origin Next link is fetched and parsed in the page once page 1 reads the same that "
    "way (metadata.pagination_mode fetch; the tab stays on page 1), else the tab follows the pages; "
    "paginate.delay_ms (default 0) pauses between pages for politeness.",
]

WHERE = [
    'options.where keeps the rows whose fields pass every condition: {"status": "open", '
    '"priority": {">=": 3}, "title": {"contains": "x"}}. Fields are the schema\'s, after conversion '
    "(number, boolean), so compare numbers with numbers.",
    "A plain value means equality; {op: value} applies an operator; several operators on one field must "
    "all hold.",
    "Operators: = (equal), != (not equal), > >= < <= (numbers with numbers, strings with strings), "
    "in (a list of allowed values), contains (a substring of a text, or an item of a list from `all`).",
    "where and limit apply before follow: only the rows kept are opened.",
]

FOLLOW = [
    "follow: {field, schema, selector?, wait_for?, concurrency?} on an extract: each row's `field` holds "
    "a link; its page is read with `schema` (under `selector`, after `wait_for`) and those fields are "
    "merged into the row.",
    "Each page is fetched and parsed in the list's page when that reads the same, else opened in a "
    "background tab; at most `concurrency` at once (default 4, up to 8).",
    "A page that fails leaves its row with the list's fields and an entry in metadata.follow_errors; a "
    "detail page that lands on a login page stops following (metadata.follow.stopped says so).",
]

COMPLETENESS = (
    "status complete: metadata.complete_because says how the end of the list was known; status partial: "
    "metadata.partial_because.hint names the option to pass to read the rest; operation suggest answers "
    "`call`, the extract to send as it is (paging included)."
)

TOPICS = {
    "workflow": "each workflow step's fields, conditions, login bounces, secret params (no about: this)",
    "where": "options.where: its operators",
    "follow": "extract follow: reading each row's detail page",
    "interact, observe, configure": "every action of the tool with its arguments",
    "ACTION": 'one action\'s arguments, e.g. about: "click", "scrape", "page"',
}

_SCRAPE_OBJECTS = (Options, PaginateOptions, ScrollOptions, Follow, ErrorRecovery, Condition)
_STEP_OBJECTS = (Condition, ExtractOptions, PaginateOptions, ScrollOptions, Options, ErrorRecovery)


# Its shape depends on `about` (action: call, does, arguments; tool: actions; workflow: steps, every_step,
# objects, notes): a plain object, so the tool's output schema does not list every key of every shape.
HelpResult = dict[str, Any]


def _steps() -> dict[str, Any]:
    from ....engine.steps import STEP_TYPES, StepBase  # the whole engine: only when asked

    common = {f.encode_name for f in msgspec.structs.fields(StepBase)}
    out: dict[str, Any] = {}
    for cls in STEP_TYPES:
        ref = fields.reference(cls)
        ref["fields"] = {k: v for k, v in ref["fields"].items() if k not in common}
        out[str(cls.__struct_config__.tag)] = ref
    return out


def _workflow() -> HelpResult:
    from ....engine.steps import StepBase

    return {
        "about": "workflow",
        "topics": TOPICS,
        "steps": _steps(),
        "every_step": fields.reference(StepBase)["fields"],
        "objects": {cls.__name__: fields.reference(cls) for cls in _STEP_OBJECTS},
        "notes": NOTES,
    }


def _action(tool: Any, name: str) -> dict[str, Any]:
    return {
        "call": f'{tool.name} {{{tool.selector}: "{name}", ...}}',
        "does": tool.actions[name].summary,
        "arguments": tool.arguments(name),
    }


def explain(about: str | None) -> HelpResult:
    """The help on `about` (see the module's docstring)."""
    from .. import TOOLS  # the tools list holds this one

    if about is None or about == "workflow":
        return _workflow()
    if about == "where":
        return {"about": about, "notes": WHERE}
    if about == "follow":
        return {"about": about, "objects": {"Follow": fields.reference(Follow)}, "notes": FOLLOW + WHERE[-1:]}
    for tool in TOOLS:
        if about == tool.name:
            return {"about": about, "does": tool.doc, "actions": {a: _action(tool, a) for a in tool.actions}}
        if about in tool.actions:
            out = {"about": about, **_action(tool, about)}
            if about == "scrape":
                out["objects"] = {cls.__name__: fields.reference(cls) for cls in _SCRAPE_OBJECTS}
                out["notes"] = [
                    COMPLETENESS,
                    *WHERE[:3],
                    FOLLOW[0],
                    'Workflow steps: observe {what: "help"}.',
                ]
            return out
    known = ["workflow", "where", "follow", *(t.name for t in TOOLS), *(a for t in TOOLS for a in t.actions)]
    guess = nearest(about, known)
    hint = f'; did you mean "{guess}"?' if guess else ""
    raise TabPilotError(
        ErrorCode.INVALID_PARAMS,
        f"help has nothing about {show(about)}{hint} Ask about an action, a tool, workflow, where or follow.",
        data={"field": "about"},
    )


async def help(  # the action's name as the agent calls it
    call: Call,
    about: Annotated[
        str | None,
        Field(description="An action (click, scrape, page...), a tool, workflow, where or follow."),
    ] = None,
) -> HelpResult:
    """an action's arguments (about: its name, or a tool's for all of them), workflow step fields (no
    about), where operators, follow; replays after a login bounce; secret params."""
    return explain(about)
