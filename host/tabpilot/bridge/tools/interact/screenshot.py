"""interact screenshot: the tab (or one element, or the full page) as MCP image content."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import Screenshot
from ..base import Call, Image


class Box(TypedDict):
    x: float
    y: float
    width: float
    height: float


class ScreenshotResult(TypedDict):
    tab_id: int
    mime: str
    width: int
    height: int
    masked: int
    masked_frames: NotRequired[int]
    element: NotRequired[Box]
    full_page: NotRequired[bool]
    truncated: NotRequired[bool]


async def screenshot(
    call: Call,
    ref: Annotated[str | None, Field(description="An @eN ref from a page snapshot.")] = None,
    selector: Annotated[str | None, Field(description="A CSS selector (first match).")] = None,
    tab_id: int | None = None,
    full_page: Annotated[bool, Field(description="screenshot: the whole page, not the viewport.")] = False,
    format: Literal["jpeg", "png"] = "jpeg",
    quality: Annotated[int, Field(ge=1, le=100, description="screenshot: JPEG quality, default 70.")] = 70,
    max_width: Annotated[
        int, Field(ge=16, le=1920, description="screenshot: widest picture, default 1280.")
    ] = 1280,
    timeout_ms: int = 10_000,
) -> Image[ScreenshotResult]:
    """the viewport (or the element ref/selector, or full_page) as an image of at most ~1,600 tokens
    (scaled to max_width and 1.2 megapixels); the text part gives its size. Secrets are boxed out
    (masked: how many; masked_frames: unreadable frames covered whole; else secret_unmaskable)."""
    value = await call.send(
        Screenshot(
            id=0,
            ref=ref,
            selector=selector,
            tab_id=tab_id,
            full_page=full_page,
            format=format,
            quality=quality,
            max_width=max_width,
            timeout_ms=timeout_ms,
        )
    )
    meta: ScreenshotResult = {
        "tab_id": value["tab_id"],
        "mime": value["mime"],
        "width": value["width"],
        "height": value["height"],
        "masked": int(value.get("masked", 0)),
    }
    if value.get("masked_frames"):
        meta["masked_frames"] = int(value["masked_frames"])
    if "element" in value:
        meta["element"] = value["element"]
    if value.get("full_page"):
        meta["full_page"] = True
        if value.get("truncated"):
            meta["truncated"] = True
    return Image(value["data"], value["mime"], meta)
