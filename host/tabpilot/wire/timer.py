"""How long one command may wait (`timeout_ms`): the user's to say, up to what a JavaScript timer
holds (a longer one would fire at once); past it a value is refused, never shortened."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

MAX_TIMER_MS = 2**31 - 1
TimeoutMs = Annotated[int, Meta(gt=0, le=MAX_TIMER_MS)]
