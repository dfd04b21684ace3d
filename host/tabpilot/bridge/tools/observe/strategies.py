"""observe strategies / aggregate: the strategy cache and the rows it gathered (served by the host)."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import ExtractionOp
from ..base import Call

ExtractionId = Annotated[str, Field(description="A cached strategy, e.g. ex-3f9a0c1b2d4e (from an extract).")]


class StrategiesResult(TypedDict):
    strategies: list[dict[str, Any]]


class AggregateResult(TypedDict):
    extraction_id: str
    rows: list[Any]
    summary: str
    pages: int
    duplicates: int
    truncated: NotRequired[bool]
    rows_returned: NotRequired[int]


async def strategies(call: Call) -> StrategiesResult:
    """the cached extraction strategies: extraction_id, url_pattern, kind, success/failure counts."""
    return await call.send(ExtractionOp(id=0, op="strategies"))


async def aggregate(call: Call, extraction_id: ExtractionId) -> AggregateResult:
    """the deduplicated rows of every extract with this extraction_id, and a summary ("40 unique rows
    from 2 pages")."""
    return await call.send(ExtractionOp(id=0, op="aggregate", extraction_id=extraction_id))
