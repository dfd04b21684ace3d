"""interact screenshot: the tab (or one element, or the full page) as MCP image content."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire import messages as m
from ..base import Call, Image
from ..fromwire import from_struct
from . import elements


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


# What the agent reads about the command's fields beyond their wire type: the element fields as every
# element action has them, and the picture's own.
FIELDS: dict[str, Any] = {
    **elements.FIELDS,
    "full_page": Annotated[bool, Field(description="screenshot: the whole page, not the viewport.")],
    "format": Annotated[Literal["jpeg", "png"], Field(description="screenshot: the image format.")],
    "quality": Annotated[int, Field(ge=1, le=100, description="screenshot: JPEG quality, default 70.")],
    "max_width": Annotated[
        int, Field(ge=16, le=1920, description="screenshot: widest picture, default 1280.")
    ],
}


async def _shoot(call: Call, command: m.Command) -> Image[ScreenshotResult]:
    value = await call.send(command)
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
    if value.get("truncated"):  # a full page or an element too tall for one picture: its top part
        meta["truncated"] = True
    return Image(value["data"], value["mime"], meta)


screenshot = from_struct(
    m.Screenshot,
    "the viewport (or the element ref/selector, wherever it is on the page, or full_page) as an image of at "
    "most ~1,600 tokens (scaled to max_width and 1.2 megapixels; one too tall for that at 640 px wide is "
    "cut: truncated); the text part gives its size and the element's box on the page. Secrets are boxed out "
    "(masked: how many; masked_frames: unreadable frames covered whole; else secret_unmaskable).",
    _shoot,
    ScreenshotResult,
    refine=FIELDS,
    defaults={"timeout_ms": 10_000},  # a full page takes several captures
)
