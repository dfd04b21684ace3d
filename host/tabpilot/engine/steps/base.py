"""What every workflow step has: a condition, a timeout, a name for its output, and `run`."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta, Struct

from ...wire.scrape import Condition, Ms
from ..context import Context

VarName = Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
Selector = Annotated[str, Meta(min_length=1, max_length=4_000)]


class StepBase(Struct, tag_field="type", kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """A workflow step. Subclasses join the step union in `steps/__init__.py` and implement `run`."""

    if_: Condition | None = msgspec.field(default=None, name="if")
    unless: Condition | None = None
    timeout_ms: Ms | None = None
    save_as: VarName | None = None

    DEFAULT_TIMEOUT_MS: ClassVar[int] = 5_000
    # Outputs that are the point of the step are returned even without save_as (as `step<N>`).
    KEEP_OUTPUT: ClassVar[bool] = False

    def timeout(self) -> int:
        """This step's time limit in ms."""
        return self.DEFAULT_TIMEOUT_MS if self.timeout_ms is None else self.timeout_ms

    async def run(self, ctx: Context) -> Any:
        """Do the step; return its output (what `save_as` names)."""
        raise NotImplementedError
