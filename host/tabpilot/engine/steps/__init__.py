"""Workflow steps: one module per type; a type exists by joining `STEP_TYPES` (the union) below."""

from __future__ import annotations

from typing import Any

import msgspec

from .base import StepBase
from .check import CheckStep
from .click import ClickStep
from .execute_js import ExecuteJsStep
from .extract import ExtractStep
from .fill import FillStep
from .hover import HoverStep
from .navigate import NavigateStep
from .press import PressStep
from .screenshot import ScreenshotStep
from .scroll import ScrollStep
from .select import SelectStep
from .type_text import TypeStep
from .wait import WaitStep

STEP_TYPES: tuple[type[StepBase], ...] = (
    NavigateStep,
    WaitStep,
    ClickStep,
    FillStep,
    TypeStep,
    PressStep,
    SelectStep,
    CheckStep,
    HoverStep,
    ScrollStep,
    ExtractStep,
    ExecuteJsStep,
    ScreenshotStep,
)

Step = StepBase  # every member of the union is a StepBase
_union: Any = STEP_TYPES[0]
for _t in STEP_TYPES[1:]:
    _union = _union | _t
STEP_UNION: Any = _union


def decode_step(value: Any) -> StepBase:
    """A step from its JSON value; msgspec.ValidationError says what is wrong and where."""
    step: StepBase = msgspec.convert(value, STEP_UNION)
    return step


def step_types() -> list[str]:
    """The `type` names a step may have."""
    return [str(t.__struct_config__.tag) for t in STEP_TYPES]
