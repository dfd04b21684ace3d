"""configure clear_aggregate: forget the rows gathered for a cached strategy (served by the host)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import ExtractionOp
from ..base import Call


class ClearedResult(TypedDict):
    cleared: list[str]


async def clear_aggregate(
    call: Call,
    extraction_id: Annotated[
        str | None, Field(description="The aggregate to clear; all of them when omitted.")
    ] = None,
) -> ClearedResult:
    """forget the rows aggregated for an extraction_id (or for all), to start a walk afresh."""
    return await call.send(ExtractionOp(id=0, op="clear_aggregate", extraction_id=extraction_id))
