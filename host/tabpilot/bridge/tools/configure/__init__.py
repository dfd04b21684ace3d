"""configure: TabPilot's own state and settings. One module per family of actions; the list below is
every action the tool takes, in the order the agent reads them."""

from __future__ import annotations

from ..composite import CompositeTool
from . import aggregates, redaction, state, status, tracking, workflows

CONFIGURE = CompositeTool(
    "configure",
    "action",
    "TabPilot's connection and settings.",
    [
        status.status,
        aggregates.clear_aggregate,
        state.save_state,
        state.load_state,
        state.list_states,
        state.delete_state,
        tracking.track_tab,
        tracking.untrack_tab,
        redaction.add_redaction,
        redaction.add_secret_pattern,
        redaction.list_secret_patterns,
        redaction.remove_secret_pattern,
        workflows.export_workflow,
        workflows.import_workflow,
        workflows.delete_workflow,
    ],
)
