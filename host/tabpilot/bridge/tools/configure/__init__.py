"""configure: TabPilot's own state and settings. One module per family of actions; the list below is
every action the tool takes, in the order the agent reads them."""

from __future__ import annotations

from ..composite import CompositeTool
from . import aggregates, redaction, state, status, tracking, workflows

CONFIGURE = CompositeTool(
    "configure",
    "action",
    'TabPilot\'s connection and settings. Arguments: observe {what: "help", about: ACTION}.',
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
    param_docs={"tab_id": "Tab; default: the active one."},
    briefs={
        "status": "browsers, pilot switch, versions",
        "clear_aggregate": "forget aggregated rows",
        "save_state": "save a site's cookies and storage",
        "load_state": "restore a saved site state",
        "list_states": "the saved site states",
        "delete_state": "delete a saved site state",
        "track_tab": "default tab for commands",
        "untrack_tab": "stop tracking a tab",
        "add_redaction": "hide more elements",
        "add_secret_pattern": "mask more text patterns",
        "list_secret_patterns": "the patterns you added",
        "remove_secret_pattern": "remove a pattern you added",
        "export_workflow": "write a workflow to a file",
        "import_workflow": "read a workflow from a file",
        "delete_workflow": "remove a recorded workflow",
    },
)
