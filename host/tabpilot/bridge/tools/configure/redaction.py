"""configure add_redaction / add_secret_pattern: hide more of the page from the agent (add only); the
agent's own secret patterns can be listed and removed."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import AddRedaction, AddSecretPattern
from ..base import Call


class RedactionResult(TypedDict):
    added: list[str]
    selectors: list[str]


async def add_redaction(
    call: Call,
    selectors: Annotated[
        list[str], Field(description="add_redaction: CSS selectors whose elements show as [REDACTED].")
    ],
) -> RedactionResult:
    """also redact elements matching selectors in every page output (you can add, never remove:
    the user's own list is edited in the popup); returns the list now in force."""
    value: Any = await call.send(AddRedaction(id=0, selectors=selectors))
    return {"added": list(value["added"]), "selectors": list(value["selectors"])}


class PatternResult(TypedDict):
    added: list[str]
    patterns: list[str]


async def add_secret_pattern(
    call: Call,
    patterns: Annotated[
        list[str],
        Field(description="add_secret_pattern: JavaScript regexes; matching text shows as [REDACTED]."),
    ],
) -> PatternResult:
    """also mask text matching these regular expressions in every page output and screenshot (prefix
    "luhn:" adds a card-number check); returns the added patterns in force."""
    value: Any = await call.send(AddSecretPattern(id=0, patterns=patterns))
    return {"added": list(value["added"]), "patterns": list(value["patterns"])}


class PatternList(TypedDict):
    patterns: list[str]
    removed: list[str]


async def list_secret_patterns(call: Call) -> PatternList:
    """the secret patterns you added."""
    value: Any = await call.send(AddSecretPattern(id=0, op="list"))
    return {"patterns": list(value["patterns"]), "removed": []}


async def remove_secret_pattern(
    call: Call,
    patterns: Annotated[list[str], Field(description="remove_secret_pattern: patterns you added.")],
) -> PatternList:
    """remove secret patterns you added (not the user's)."""
    value: Any = await call.send(AddSecretPattern(id=0, op="remove", patterns=patterns))
    return {"patterns": list(value["patterns"]), "removed": list(value["removed"])}
