"""interact screenshot: image content sized for a model, background tabs, elements (wherever they are,
however tall, secrets masked), full pages."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent, TextContent
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on
from tests.support.snap import ref, snapshot

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


TOKEN_BUDGET = 1_600


async def _shot(client: Client, **args: Any) -> tuple[bytes, dict[str, Any], str]:
    result = await client.call_tool("interact", {"action": "screenshot", **args})
    texts = [c for c in result.content if isinstance(c, TextContent)]
    assert not result.is_error, texts[0].text if texts else result
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    meta = json.loads(texts[0].text)
    assert result.structured_content == meta
    assert image.mime_type == meta["mime"]
    assert meta["width"] * meta["height"] / 750 <= TOKEN_BUDGET, meta
    return base64.b64decode(image.data), meta, image.data


async def _pixel(client: Client, tab_id: int, data: str, mime: str, x: float, y: float) -> list[int]:
    """Decode the picture in a page and read one pixel (fractions of width and height)."""
    script = (
        f"const img = new Image(); img.src = 'data:{mime};base64,{data}'; await img.decode();"
        "const c = new OffscreenCanvas(img.width, img.height); const g = c.getContext('2d');"
        f"g.drawImage(img, 0, 0); return [img.width, img.height, ...g.getImageData("
        f"Math.floor(img.width * {x}), Math.floor(img.height * {y}), 1, 1).data.slice(0, 3)]"
    )
    out = await call(client, "interact", action="execute_js", script=script, tab_id=tab_id)
    return out["result"]


def _close(rgb: list[int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(rgb, want, strict=True))


async def test_viewport_screenshot_is_a_small_jpeg_of_the_right_tab(client: Client, site: str) -> None:
    front = await call(client, "interact", action="navigate", url=f"{site}/second.html")
    await call(
        client,
        "interact",
        action="execute_js",
        script="document.body.style.background = 'rgb(0, 200, 0)'",
    )
    back = await call(client, "interact", action="new_tab", url=f"{site}/index.html", active=False)
    await call(
        client,
        "interact",
        action="execute_js",
        script="document.body.style.background = 'rgb(200, 0, 0)'",
        tab_id=back["tab_id"],
    )

    raw, meta, data = await _shot(client)
    assert raw[:3] == b"\xff\xd8\xff" and meta["mime"] == "image/jpeg"
    assert meta["tab_id"] == front["tab_id"] and 0 < meta["width"] <= 1280
    px = await _pixel(client, front["tab_id"], data, meta["mime"], 0.5, 0.9)
    assert px[:2] == [meta["width"], meta["height"]] and _close(px[2:], (0, 200, 0)), px

    # A background tab is captured as itself, and the tab in front stays in front.
    raw, meta, data = await _shot(client, tab_id=back["tab_id"])
    assert meta["tab_id"] == back["tab_id"]
    px = await _pixel(client, front["tab_id"], data, meta["mime"], 0.5, 0.9)
    assert _close(px[2:], (200, 0, 0)), px
    tabs = {t["id"]: t for t in (await call(client, "observe", what="tabs"))["tabs"]}
    assert tabs[front["tab_id"]]["active"] and not tabs[back["tab_id"]]["active"]

    # Chrome allows ~2 captures a second: a burst still succeeds, waiting its turn.
    for _ in range(5):
        await _shot(client, tab_id=back["tab_id"])

    png, meta, _ = await _shot(client, format="png", max_width=640)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and meta["width"] <= 640
    await call(client, "interact", action="close_tab", tab_id=back["tab_id"])


async def test_element_and_full_page_screenshots(client: Client, site: str) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{site}/tall.html")
    tid = nav["tab_id"]
    # Far below the fold: scrolled into view, then cropped to its 300 x 120 box.
    _, meta, data = await _shot(client, selector="#far")
    assert meta["element"]["width"] == 300 and meta["element"]["height"] == 120
    assert (meta["width"], meta["height"]) == (300, 120)
    px = await _pixel(client, tid, data, meta["mime"], 0.5, 0.5)
    assert _close(px[2:], (255, 0, 0)), px

    _, full, data = await _shot(client, full_page=True)
    assert full["full_page"] is True and full["height"] > full["width"]
    px = await _pixel(client, tid, data, full["mime"], 0.5, 0.99)
    assert _close(px[2:], (0, 0, 255)), px

    for args, code in [
        ({"selector": "#nowhere"}, ErrorCode.ELEMENT_NOT_FOUND),
        ({"selector": "div[["}, ErrorCode.INVALID_SELECTOR),
        ({"selector": "#hidden"}, ErrorCode.NOT_INTERACTABLE),
        ({"selector": "#far", "full_page": True}, ErrorCode.INVALID_PARAMS),
        ({"tab_id": 2**31 - 2}, ErrorCode.TAB_NOT_FOUND),
    ]:
        err = await call_error(client, "interact", action="screenshot", **args)
        assert err["error"] == code, (args, err)

    # A ref from a page snapshot names the element as a selector does; a stale one is stale_ref.
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    link = ref((await snapshot(client))["text"], "link", "Second page")
    _, meta, _ = await _shot(client, ref=link)
    box = meta["element"]
    assert (
        box["width"] > 10
        and box["height"] > 5
        and (meta["width"], meta["height"])
        == (
            round(box["width"]),
            round(box["height"]),
        )
    )
    await call(client, "interact", action="reload")
    stale = await call_error(client, "interact", action="screenshot", ref=link)
    assert stale["error"] == ErrorCode.STALE_REF


async def test_screenshot_is_refused_with_the_pilot_off(
    driver: webdriver.Chrome, module_client: Client
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    try:
        err = await call_error(client, "interact", action="screenshot")
        assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
    finally:
        browser.set_pilot(driver, True)


# Element screenshots show the element wherever it is: below the fold (again and again, never a frame
# of the page before it scrolled there), taller than the viewport (whole, not clipped to it), too tall
# for the picture budget (cut and said so), and with its secrets masked below the fold too.
RED, GREEN, BLACK, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 0), (255, 255, 255)


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The pixels are read by a script in the page; the page shows a secret, so scripts there need the
    person's consent, given in the popup (this module does not test that consent)."""
    allow_scripts_on(chromium, site)


async def _element_shot(client: Client, **args: Any) -> tuple[str, dict[str, Any]]:
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


async def test_elements_below_the_fold_are_captured_as_themselves(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/shots/tall.html")
    # Back and forth between two elements far apart: a frame of the page before it scrolled would show
    # the blue page (or the other element) where the element is.
    for selector, color in [("#red", RED), ("#green", GREEN)] * 3:
        data, meta = await _element_shot(client, selector=selector)
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
    data, meta = await _element_shot(client, selector="#tall")
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
    data, meta = await _element_shot(client, selector="#huge")
    assert meta["truncated"] is True and meta["element"]["height"] == 20_000
    assert meta["width"] >= 640 and meta["height"] < 20_000 * meta["width"] / 1_000
    [size, middle] = await _pixels(client, data, [(0.5, 0.5)])
    assert size == [meta["width"], meta["height"]] and _close(middle, (255, 0, 255)), middle
