"""Reading page snapshots in tests: find the ref of an element by its kind and name."""

from __future__ import annotations

import re
from typing import Any

from mcp import Client

from .mcp_client import call


def ref(text: str, kind: str, name: str) -> str:
    """The ref on the snapshot line `@eN kind "name"...`; fails the test when there is none."""
    found = re.search(rf'(?:^|\s)(@e\d+) {re.escape(kind)} "{re.escape(name)}"', text, re.M)
    assert found, f'no {kind} "{name}" in the snapshot:\n{text}'
    return found.group(1)


async def snapshot(client: Client, **args: Any) -> dict[str, Any]:
    """observe what=page."""
    return await call(client, "observe", what="page", **args)


async def js(client: Client, script: str) -> Any:
    """The value of `script` in the page (execute_js)."""
    out = await call(client, "interact", action="execute_js", script=script)
    assert out["success"], out
    return out["result"]


async def log_in(client: Client, site: str, user: str, password: str) -> dict[str, Any]:
    """Sign in on the fixture login page by refs, as an agent would; answers the click's result."""
    await call(client, "interact", action="navigate", url=f"{site}/login.html")
    text = (await snapshot(client))["text"]
    await call(client, "interact", action="fill", ref=ref(text, "textbox", "User"), value=user)
    await call(client, "interact", action="fill", ref=ref(text, "password", "Password"), value=password)
    return await call(client, "interact", action="click", ref=ref(text, "button", "Sign in"), snapshot="full")
