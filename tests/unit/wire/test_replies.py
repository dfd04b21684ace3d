"""Replies are part of the protocol: one struct per extension command, decoded (never `.get`-parsed),
and the extension reads each command's defaults from the generated table instead of restating them."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest

from tabpilot import paths
from tabpilot.wire import jsdoc, jsgen
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.replies import REPLIES, ExtractReply, PaginateReply, SuggestReply, decode_reply

EXT = paths.extension_dir()


def test_every_extension_command_has_a_reply() -> None:
    assert set(REPLIES) == set(m.EXTENSION_COMMANDS)


def test_a_reply_skips_fields_it_does_not_know_and_defaults_the_ones_it_misses() -> None:
    # The extension and the host update separately: a newer field is skipped, an older reply still reads.
    got = decode_reply(PaginateReply, {"outcome": "redrawn", "rows_after": 3})
    assert got == PaginateReply(outcome="redrawn")
    assert decode_reply(ExtractReply, {}).rows == []


@pytest.mark.parametrize(
    ("cls", "value"),
    [
        (ExtractReply, {"rows": "not rows"}),
        (ExtractReply, {"rows": [], "count": "3"}),
        (SuggestReply, {"candidates": [{"fields": [{"selector": "td"}]}]}),  # a field without its name
        (PaginateReply, ["navigated"]),
        (PaginateReply, None),
    ],
)
def test_a_malformed_reply_is_a_structured_error(cls: type[Any], value: Any) -> None:
    with pytest.raises(TabPilotError) as caught:
        decode_reply(cls, value)
    assert caught.value.code == ErrorCode.MALFORMED_REPLY


def test_the_defaults_table_holds_every_non_null_default_of_every_command() -> None:
    table = jsdoc.defaults()
    assert table["click"]["timeout_ms"] == m.Click(id=0).timeout_ms
    for cls in m.EXTENSION_COMMANDS:
        for f in msgspec.structs.fields(cls):
            if f.default not in (msgspec.NODEFAULT, None):
                assert table[m.tag_of(cls)][f.encode_name] == f.default, (cls, f.name)


# A fallback the service worker writes for a field the host leaves out (messages omit their defaults):
# `msg.x ?? 5`, `timeoutParam(msg.timeout_ms, 5_000)`, `intIn(msg.x, 5, ...)`, `fallbackTimeoutMs: 10_000`.
_FALLBACK = re.compile(
    r"msg\.(?P<a>\w+)\s*\?\?\s*(?P<va>[^\s;,)]+)"
    r"|\(msg\.(?P<b>\w+),\s*(?P<vb>[^\s,)]+)"
    r"|msg\.(?P<c>\w+)\s*===\s*undefined\s*\|\|\s*msg\.\w+\s*===\s*null\s*\?\s*(?P<vc>[^\s:]+)"
    r"|fallbackTimeoutMs:\s*(?P<vd>[^\s,})]+)"
)
_LITERAL = re.compile(r"^(?:[\d_.]+(?:\s*\*\s*[\d_]+)*|'[^']*'|\"[^\"]*\"|true|false)$")


def _restated(text: str, defaults: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for hit in _FALLBACK.finditer(text):
        field = hit["a"] or hit["b"] or hit["c"] or "timeout_ms"
        value = hit["va"] or hit["vb"] or hit["vc"] or hit["vd"]
        if field in defaults and _LITERAL.match(value):
            found.append(hit.group(0))
    return found


def test_the_service_worker_reads_defaults_from_the_table() -> None:
    table = jsdoc.defaults()
    every: dict[str, Any] = {k: v for d in table.values() for k, v in d.items()}
    offenders: dict[str, list[str]] = {}
    worker = EXT / "worker"
    files = sorted([*(worker / "commands").glob("*.js"), *(worker / "lib").glob("*.js")])
    assert len(files) > 30  # the folders moved: this would pass on nothing
    for path in files:
        # A command's own handler is checked against its own defaults, shared code against all of them.
        own = table.get(path.stem, every) if path.parent.name == "commands" else every
        hits = _restated(path.read_text(), own)
        if hits:
            offenders[str(path.relative_to(EXT))] = hits
    assert offenders == {}


def test_the_restatement_check_sees_each_form() -> None:
    defaults = {"timeout_ms": 5000, "quality": 70, "max_candidates": 5, "format": "jpeg"}
    text = (
        "timeoutParam(msg.timeout_ms, 5_000); msg.quality ?? 70; intIn(msg.max_candidates, 5, 1, 20);"
        "msg.format === undefined || msg.format === null ? 'jpeg' : msg.format; { fallbackTimeoutMs: 10_000 }"
    )
    assert len(_restated(text, defaults)) == 5
    table = "msg.quality ?? DEFAULTS.screenshot.quality; timeoutParam(msg.timeout_ms, DEFAULTS.x.timeout_ms)"
    assert _restated(table, defaults) == []


def test_protocol_js_documents_every_reply() -> None:
    text = (EXT / jsgen.TARGET).read_text()
    for cls in set(REPLIES.values()):
        assert f"@typedef {{Object}} {cls.__name__}" in text
