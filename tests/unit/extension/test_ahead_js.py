"""The page agent ahead of the first command (extension/worker/lib/ahead.js), run under node with scripted
webNavigation events and storage: which documents get the agent injected as they commit."""

from __future__ import annotations

from tests.support import node

pytestmark = node.needed

# chrome.webNavigation, tabs.onRemoved and storage as a test sets them; executeScript records its targets.
FAKE_CHROME = """
const event = () => {
  const fns = new Set();
  return {
    addListener(fn) { fns.add(fn); },
    removeListener(fn) { fns.delete(fn); },
    fire(...a) { for (const fn of [...fns]) fn(...a); },
  };
};
const nav = {};
for (const name of ['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred',
  'onReferenceFragmentUpdated', 'onHistoryStateUpdated', 'onCreatedNavigationTarget']) nav[name] = event();
const stored = { pilot: true, sites: { all: false, sites: ['a.test'] } };
const injected = [];
let finish = null; // the last injection's resolve: it lands when the test says so
globalThis.chrome = {
  webNavigation: nav,
  tabs: { onRemoved: event() },
  storage: {
    local: { get: async (k) => (typeof k === 'string' ? { [k]: stored[k] } : { ...stored }) },
    session: { set: async () => {} },
  },
  scripting: {
    executeScript: (call) => {
      injected.push(call.target.documentIds ? call.target.documentIds[0] : `frame:${call.target.frameIds}`);
      return new Promise((resolve) => { finish = () => resolve([{}]); });
    },
  },
  runtime: { getURL: (p) => `chrome-extension://x/${p}` },
};
const ahead = await import('./worker/lib/ahead.js');
const page = await import('./worker/lib/page.js');
const commit = (tabId, url, documentId) => nav.onCommitted.fire({ tabId, frameId: 0, url, documentId });
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
"""


def _node(code: str) -> object:
    return node.run_module(FAKE_CHROME + code)


def test_only_driven_tabs_in_scope_get_the_agent_as_a_page_commits() -> None:
    out = _node(
        """
        ahead.drive(1);
        commit(1, 'http://a.test/list', 'd1');                 // driven, in scope
        commit(2, 'http://a.test/list', 'd2');                 // the person's tab
        commit(1, 'http://b.test/', 'd3');                     // outside the scope
        commit(1, 'about:blank', 'd4');                        // no web page
        nav.onCommitted.fire({ tabId: 1, frameId: 5, url: 'http://a.test/f', documentId: 'd5' }); // a frame
        await settle();
        console.log(JSON.stringify(injected));
        """
    )
    assert out == ["d1"]


def test_a_navigation_a_command_starts_drives_the_tab_and_the_pilot_off_forgets_it() -> None:
    out = _node(
        """
        const r = {};
        const release = ahead.actingOn(3);
        nav.onBeforeNavigate.fire({ tabId: 3, frameId: 0, url: 'http://a.test/next' });
        commit(3, 'http://a.test/next', 'n1');
        release();
        const quiet = ahead.actingOn(4);                       // acted on, never navigated
        quiet();
        commit(4, 'http://a.test/x', 'q1');
        await settle();
        r.afterActions = [...injected];
        commit(3, 'http://a.test/later', 'n2');                // still driven after the command
        await settle();
        r.later = injected.length;
        ahead.forgetAll();
        commit(3, 'http://a.test/again', 'n3');
        const state = await import('./worker/lib/state.js');
        state.applyStorageChanges({ pilot: { newValue: false } });
        ahead.drive(6);
        commit(6, 'http://a.test/', 'o1');                     // the pilot is off
        await settle();
        r.after = injected.length;
        console.log(JSON.stringify(r));
        """
    )
    assert out == {"afterActions": ["n1"], "later": 2, "after": 2}


def test_a_command_waits_for_the_agent_on_its_way_and_a_document_gets_it_once() -> None:
    out = _node(
        """
        const r = {};
        ahead.drive(7);
        commit(7, 'http://a.test/', 'w1');
        await settle();
        page.injectAgent(7, 'w1');                             // paginate's own, for the same document
        r.once = injected.length;
        const coming = page.arrival(7);
        let arrived = false;
        coming.then(() => { arrived = true; });
        await settle();
        r.before = arrived;
        finish();
        await settle();
        r.after = arrived;
        r.gone = page.arrival(7);
        console.log(JSON.stringify(r));
        """
    )
    assert out == {"once": 1, "before": False, "after": True, "gone": None}
