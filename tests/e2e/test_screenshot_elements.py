"""Element screenshots show the element wherever it is: below the fold (again and again, never a frame
of the page before it scrolled there), taller than the viewport (whole, not clipped to it), too tall
for the picture budget (cut and said so), and with its secrets masked below the fold too."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent, TextContent

from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support import browser
from tests.support.mcp_client import call
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio

RED, GREEN, BLACK, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 0), (255, 255, 255)


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The pixels are read by a script in the page; the page shows a secret, so scripts there need the
    person's consent, given in the popup (this module does not test that consent)."""
    allow_scripts_on(chromium, site)


async def _shot(client: Client, **args: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool("interact", {"action": "screenshot", "format": "png", **args})
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    assert not result.is_error, texts
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    meta = json.loads(texts[0])
    assert meta["width"] * meta["height"] <= 1_200_000, meta
    return image.data, meta


async def _pixels(client: Client, data: str, points: list[tuple[float, float]]) -> list[list[int]]:
    """The picture's size, then the RGB of each point (fractions of width and height)."""
    script = (
        f"const img = new Image(); img.src = 'data:image/png;base64,{data}'; await img.decode();"
        "const c = new OffscreenCanvas(img.width, img.height); const g = c.getContext('2d');"
        f"g.drawImage(img, 0, 0); const at = {json.dumps(points)};"
        "return [[img.width, img.height], ...at.map(([x, y]) => [...g.getImageData("
        "Math.min(img.width - 1, Math.floor(img.width * x)),"
        " Math.min(img.height - 1, Math.floor(img.height * y)), 1, 1).data.slice(0, 3)])]"
    )
    out = await call(client, "interact", action="execute_js", script=script)
    assert out["success"], out
    return out["result"]


def _close(rgb: list[int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(rgb, want, strict=True))


async def test_elements_below_the_fold_are_captured_as_themselves(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/shots/tall.html")
    # Back and forth between two elements far apart: a frame of the page before it scrolled would show
    # the blue page (or the other element) where the element is.
    for selector, color in [("#red", RED), ("#green", GREEN)] * 3:
        data, meta = await _shot(client, selector=selector)
        assert (meta["width"], meta["height"]) == (300, 120), meta
        [size, middle, corner] = await _pixels(client, data, [(0.5, 0.5), (0.02, 0.05)])
        assert size == [300, 120] and _close(middle, color) and _close(corner, color), (
            selector,
            middle,
            corner,
        )
    # Nothing was scrolled to take them.
    assert await call(client, "interact", action="execute_js", script="scrollY") == {
        "success": True,
        "result": 0,
    }


async def test_an_element_taller_than_the_viewport_is_captured_whole(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/shots/tall.html")
    viewport = (await call(client, "interact", action="execute_js", script="innerHeight"))["result"]
    assert viewport < 2_400
    data, meta = await _shot(client, selector="#tall")
    assert meta["element"]["height"] == 2_400 and meta["element"]["y"] == 1_500
    assert (meta["width"], meta["height"]) == (460, 2_400) and "truncated" not in meta, meta
    size, top, middle, bottom = await _pixels(client, data, [(0.5, 0.1), (0.5, 0.5), (0.5, 0.97)])
    assert size == [460, 2_400]
    assert _close(top, RED) and _close(middle, GREEN) and _close(bottom, BLACK), (top, middle, bottom)
    # Its secret, far below the viewport, is masked like one in view; its other words are readable.
    seen = ocr(base64.b64decode(data))
    assert norm("WHISKEY WORDS") in seen, seen
    assert meta["masked"] >= 1 and norm("AKIAZULU") not in seen and norm("TANGOXRAY") not in seen, seen


async def test_an_element_too_tall_for_one_picture_is_cut_and_says_so(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/shots/tall.html")
    data, meta = await _shot(client, selector="#huge")
    assert meta["truncated"] is True and meta["element"]["height"] == 20_000
    assert meta["width"] >= 640 and meta["height"] < 20_000 * meta["width"] / 1_000
    [size, middle] = await _pixels(client, data, [(0.5, 0.5)])
    assert size == [meta["width"], meta["height"]] and _close(middle, (255, 0, 255)), middle
