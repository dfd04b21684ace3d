"""observe what=help: every workflow step type's fields, generated from the step definitions, answered
by `tabpilot mcp` without any browser."""

from __future__ import annotations

import anyio
import msgspec
import pytest

from tabpilot.engine.steps import STEP_TYPES, StepBase
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


async def test_help_lists_each_step_s_own_fields_without_a_browser(tp_dirs: dict[str, str]) -> None:
    with anyio.fail_after(60):
        async with mcp_client(tp_dirs) as client:
            out = await call(client, "observe", what="help")
    common = {f.encode_name for f in msgspec.structs.fields(StepBase)}
    assert set(out["every_step"]) == common == {"if", "unless", "timeout_ms", "save_as"}
    assert list(out["steps"]) == [str(t.__struct_config__.tag) for t in STEP_TYPES]
    for cls in STEP_TYPES:
        own = [f.encode_name for f in msgspec.structs.fields(cls) if f.encode_name not in common]
        step = out["steps"][str(cls.__struct_config__.tag)]
        assert list(step["fields"]) == own and step["does"]
    assert out["steps"]["navigate"]["fields"] == {"url": "str (required)", "allow_redirect": "bool = false"}
    assert "options" in out["steps"]["extract"]["fields"]
    assert set(out["objects"]["ExtractOptions"]["fields"]) >= {"paginate", "scroll", "where", "virtual"}
    assert any("allow_redirect" in note for note in out["notes"])
