"""Screenshots mask every secret: OCR (Debian's tesseract) reads the owners' names and the public key
in the picture, but none of the secret keys, in the viewport, an element and the full page; frames
and shadow roots included."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent, TextContent

from tests.support import browser
from tests.support.mcp_client import call
from tests.support.popup import allow_scripts_on

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


NAMES = ("ALICE MARTIN", "BRUNO KELLER", "CHLOE DUBOIS", "KEYDEMO1234", "FRAME", "SHADOW", "OPAQUE")
# Distinctive parts of each secret; an OCR misreading of a digit or two still shows these.
SECRETS = ("ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "GOLF", "HOTEL", "JULIET", "4111", "1111 1111")


def ocr(png: bytes) -> str:
    """The text tesseract reads in the picture (`./dev test` installs tesseract-ocr, like chromium)."""
    tesseract = shutil.which("tesseract")
    assert tesseract, "tesseract-ocr is missing: ./dev test installs it"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shot.png"
        path.write_bytes(png)
        done = subprocess.run([tesseract, str(path), "stdout"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return norm(done.stdout)


def norm(text: str) -> str:
    """Upper case, with the glyphs OCR confuses in this font folded together (0/O, 1/I/!/|, 5/S)."""
    return text.upper().translate(str.maketrans("0!1|5", "OIIIS"))


async def _shot(client: Client, **args: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(
        "interact", {"action": "screenshot", "format": "png", "max_width": 1920, **args}
    )
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    assert not result.is_error, texts
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    return ocr(base64.b64decode(image.data)), json.loads(texts[0])


async def test_ocr_reads_the_names_but_no_secret(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/keys.html")
    for args in ({}, {"full_page": True}):
        text, meta = await _shot(client, **args)
        for name in NAMES:
            assert norm(name) in text, f"OCR did not read {name!r} ({args}):\n{text}"
        for secret in SECRETS:
            assert norm(secret) not in text, f"{secret} readable in the screenshot ({args}):\n{text}"
        # Three table keys, the card, the shadow root's key, the same-origin frame's, and the
        # cross-origin and data: frames' own (masked by their agents); the frame that moved away
        # from its src cannot be told apart, so it is covered whole.
        assert (meta["masked"], meta.get("masked_frames")) == (8, 1), json.dumps([meta, text])

    text, meta = await _shot(client, selector="#keys")
    assert norm("ALICE MARTIN") in text and norm("KEYDEMO1234") in text, text
    for secret in SECRETS[:3]:
        assert norm(secret) not in text, text
    assert meta["element"]["width"] > 0 and meta["masked"] == 8

    # The boxes are gone once the picture is taken.
    left = await call(
        client, "interact", action="execute_js", script="document.querySelectorAll('[popover]').length"
    )
    assert left["result"] == 0


async def test_a_frame_that_leaves_once_masked_is_covered_whole(client: Client, site: str) -> None:
    """A cross-origin frame that goes to another page of secrets the moment its masks are drawn: the
    document that answers afterwards is not the one masked, so the picture is taken again with the frame
    covered whole (which document answers is checked, not only the address the browser last told)."""
    await call(client, "interact", action="navigate", url=f"{site}/secrets/flees.html")
    for _ in range(2):
        text, meta = await _shot(client)
        assert norm("FLEEING FRAME") in text, text
        for secret in ("XRAY", "YANKEE"):
            assert norm(secret) not in text, f"{secret} readable in the screenshot:\n{text}"
    assert meta.get("masked_frames") == 1, meta  # by now the frame is elsewhere than its src
