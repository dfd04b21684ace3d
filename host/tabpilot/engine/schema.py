"""The schema mini-language: one string per field, `"<css selector> | op | op"`.

Grammar (whitespace around tokens is ignored):

    field    := selector ( "|" op )*
    selector := CSS text up to the first "|" that is outside quotes, [brackets] and (parentheses),
                and not escaped with a backslash; empty or ":scope" means the row element itself;
                one that starts with "+" or "~" reads the row's following siblings the way CSS's
                combinators do ("+ dd": the dd right after a dl's dt row; "~ p a")
    op       := take | convert | "all"
    take     := "text" | "html" | "attr:" NAME | "url" [ ":" NAME ]
    convert  := "number" | "boolean"

At most one take (default `text`, whitespace-normalised), at most one conversion, `all` at most once
(every match as a list instead of the first). `url` reads href/src (or NAME) as an absolute URL.
A namespace `ns|tag` selector cannot be written here: the page's querySelector cannot resolve a
prefix anyway. The selector itself is checked by the page: an invalid one gives that field null and
a warning, not an error (the other fields are still extracted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..wire.messages import FieldPlan

TAKES = ("text", "html", "attr", "url")
CONVERTS = ("number", "boolean")
_NAME = re.compile(r"^[A-Za-z_:][-A-Za-z0-9_:.]*$")
_FIELD_NAME = re.compile(r"^[^\x00-\x1f]{1,200}$")
MAX_FIELDS = 100


class SchemaError(ValueError):
    """A field spec that does not follow the grammar; the message names the field and the problem."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One parsed field: what to read from each row, and how to convert it in the host."""

    name: str
    selector: str = ""
    take: str = "text"
    attr: str | None = None
    all: bool = False
    convert: str | None = None

    def plan(self) -> FieldPlan:
        """The part the page executes."""
        return FieldPlan(name=self.name, selector=self.selector, take=self.take, attr=self.attr, all=self.all)

    def render(self) -> str:
        """The canonical spec string; parse(render(x)) == x."""
        take = f"{self.take}:{self.attr}" if self.attr else self.take
        ops = [take, *(["all"] if self.all else []), *([self.convert] if self.convert else [])]
        return " | ".join([self.selector or ":scope", *ops])


def split_pipes(spec: str) -> list[str]:
    """Split at top-level `|`: not inside quotes, brackets or parentheses, not escaped, not `|=`."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    n = len(spec)
    while i < n:
        ch = spec[i]
        if ch == "\\":
            i += 2
            continue
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "|" and depth == 0 and not spec.startswith("|=", i):
            parts.append(spec[start:i])
            start = i + 1
        i += 1
    parts.append(spec[start:])
    return parts


def parse_field(name: str, spec: str) -> FieldSpec:
    """Parse one field spec; raise SchemaError naming the field when it breaks the grammar."""
    if not isinstance(spec, str):  # pyright: ignore[reportUnnecessaryIsInstance]  (JSON input)
        raise SchemaError(f'field {name!r}: the spec must be a string like "td.price | number"')
    if not _FIELD_NAME.match(name):
        raise SchemaError(f"field name {name!r} must be 1-200 printable characters")
    selector, *ops = split_pipes(spec)
    selector = selector.strip()
    if selector == ":scope":
        selector = ""
    if selector[:1] in ("+", "~") and not selector[1:].strip():
        raise SchemaError(f"field {name!r}: {selector!r} needs a selector after it, e.g. `+ dd`")
    take: str | None = None
    attr: str | None = None
    every = False
    convert: str | None = None
    for raw in ops:
        op = raw.strip()
        word, _, arg = op.partition(":")
        word = word.strip().lower()
        arg = arg.strip()
        if word in TAKES:
            if take is not None:
                raise SchemaError(f"field {name!r}: two ways to read it ({take} and {word}); keep one")
            if word == "attr" and not arg:
                raise SchemaError(f"field {name!r}: attr needs a name, e.g. `attr:href`")
            if arg and word in ("text", "html"):
                raise SchemaError(f"field {name!r}: {word} takes no argument")
            if arg and not _NAME.match(arg):
                raise SchemaError(f"field {name!r}: {arg!r} is not an attribute name")
            take, attr = word, (arg or None)
        elif word in CONVERTS and not arg:
            if convert is not None:
                raise SchemaError(f"field {name!r}: two conversions ({convert} and {word}); keep one")
            convert = word
        elif word == "all" and not arg:
            if every:
                raise SchemaError(f"field {name!r}: `all` given twice")
            every = True
        else:
            shown = op or "(empty)"
            raise SchemaError(
                f"field {name!r}: unknown op {shown!r}; ops are text, html, attr:NAME, url, number, "
                "boolean, all"
            )
    return FieldSpec(name, selector, take or "text", attr, every, convert)


def parse_schema(schema: dict[str, str]) -> list[FieldSpec]:
    """Parse every field of a schema (in its order)."""
    if not schema:
        raise SchemaError('the schema needs at least one field, e.g. {"title": "h2 | text"}')
    if len(schema) > MAX_FIELDS:
        raise SchemaError(f"a schema has at most {MAX_FIELDS} fields")
    return [parse_field(name, spec) for name, spec in schema.items()]
