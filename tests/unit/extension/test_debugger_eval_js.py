"""The debugger way of running the agent's script (worker/lib/debugger_eval.js) under node, over a stub
chrome.debugger: a script the timeout stopped is `timeout` with the page kept (`recovered: terminated`),
whether the debugger says "Execution was terminated" or, as a busy renderer now and then does, a bare
"Internal error" at the deadline; an "Internal error" before the deadline is no timeout; the debugger is
detached every time."""

from __future__ import annotations

from typing import Any

from tests.support import node

pytestmark = node.needed

STUB = """
let answer = null; // (params) => Promise of the Runtime.evaluate result
let detached = 0;
globalThis.chrome = { debugger: {
  attach: async () => {},
  detach: async () => { detached += 1; },
  sendCommand: async (target, method, params) => answer(params),
} };
const { evaluateWithDebugger } = await import('./worker/lib/debugger_eval.js');
const run = (timeoutMs) => evaluateWithDebugger(7, [{ expression: 'x' }], { timeoutMs }).then(
  (value) => ({ value }),
  (err) => ({ code: err.code, message: err.message, data: err.data ?? null }),
);
// The debugger fails the evaluation with `error` after `ms` (null: at the script's own timeout).
const after = (ms, error) => (params) => new Promise((_, reject) => {
  setTimeout(() => reject(new Error(error)), ms ?? params.timeout);
});
"""


def _run(code: str) -> Any:
    return node.run_module(STUB + code + "\nprocess.exit(0);")


def test_a_script_stopped_at_the_deadline_is_a_timeout_however_the_debugger_says_it() -> None:
    out = _run(
        """
        answer = after(null, 'Execution was terminated');
        const terminated = await run(60);
        answer = after(null, '{"code":-32603,"message":"Internal error"}');
        const internal = await run(60);
        answer = after(5, '{"code":-32603,"message":"Internal error"}');
        const early = await run(200);
        console.log(JSON.stringify({ terminated, internal, early, detached }));
        """
    )
    for stopped in (out["terminated"], out["internal"]):
        assert stopped["code"] == "timeout" and stopped["data"]["recovered"] == "terminated", stopped
    assert out["early"].get("code") != "timeout" and "Internal error" in out["early"]["message"], out["early"]
    assert out["detached"] == 3
