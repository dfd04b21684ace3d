"""Values typed into secret fields during a run: never returned, nor kept in what the run writes."""

from __future__ import annotations

from typing import Any, cast

REDACTED = "[REDACTED]"
# Shorter values are too common to replace wherever they occur (a PIN's digits in prices).
_MIN_SCRUB = 3


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` with every text typed into a secret field during the run replaced by [REDACTED]: what a
    script read back from such a field (an execute_js output) is neither returned nor kept."""
    wanted = sorted({s for s in secrets if len(s) >= _MIN_SCRUB}, key=len, reverse=True)
    return _scrub(value, wanted) if wanted else value


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in cast(list[Any], value)]
    return value
