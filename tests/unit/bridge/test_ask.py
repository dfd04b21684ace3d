"""Who is asked for a secret, and what they are told: only a client that takes form-mode elicitation
(MCP forbids form mode for passwords, so the form has no field: it only says where to type), and the
message names the secret and the site but never asks for the value itself."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from mcp_types import (
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    UrlElicitationCapability,
)

from tabpilot.bridge.tools import ask


def _ctx(caps: ClientCapabilities | None) -> Any:
    return cast(Any, SimpleNamespace(client_capabilities=caps))


def test_only_a_client_with_form_elicitation_is_asked() -> None:
    form = ElicitationCapability(form=FormElicitationCapability())
    url_only = ElicitationCapability(url=UrlElicitationCapability())
    cases = [
        (ClientCapabilities(elicitation=ElicitationCapability()), True),  # `{}` means form mode
        (ClientCapabilities(elicitation=form), True),
        (ClientCapabilities(elicitation=url_only), False),
        (ClientCapabilities(), False),
        (None, False),
    ]
    for caps, expected in cases:
        assert ask.can_ask(_ctx(caps)) is expected, caps
    assert ask.can_ask(None) is False


def test_the_message_says_where_to_type_and_what_for() -> None:
    text = ask.message(["password"], "wf-ledger-20261127", ["intranet.example"])
    assert "tab in your browser" in text and "password" in text and "intranet.example" in text
    assert "wf-ledger-20261127" in text and "not here" in text
    assert ask.message(["token"], "", []).startswith(
        "TabPilot opened a tab in your browser asking for token;"
    )
