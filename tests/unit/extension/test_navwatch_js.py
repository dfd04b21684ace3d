"""The worker's one navigation watcher (extension/worker/lib/navwatch.js), run under node with scripted
webNavigation events: the loads a command starts (waitForLoad) and the navigations a page action may
start (watchNavigation) share one set of listeners."""

from __future__ import annotations

from tests.support import node

pytestmark = node.needed

# chrome.webNavigation and chrome.tabs.onRemoved as events a test fires by hand; `added` counts listeners.
FAKE_CHROME = """
const added = { count: 0 };
const event = () => {
  const fns = new Set();
  return {
    addListener(fn) { fns.add(fn); added.count += 1; },
    removeListener(fn) { fns.delete(fn); },
    fire(...args) { for (const fn of [...fns]) fn(...args); },
  };
};
const nav = {};
for (const name of ['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred',
  'onReferenceFragmentUpdated', 'onHistoryStateUpdated', 'onCreatedNavigationTarget']) nav[name] = event();
globalThis.chrome = { webNavigation: nav, tabs: { onRemoved: event() } };
const { waitForLoad, watchNavigation } = await import('./worker/lib/navwatch.js');
const outcome = (p) => Promise.race([
  p.then(() => 'loaded', (e) => e.code),
  new Promise((resolve) => setTimeout(() => resolve('pending'), 50)),
]);
const frame = (tabId, more) => ({ tabId, frameId: 0, ...more });
"""


def _node(code: str) -> dict[str, object]:
    return node.run_module(FAKE_CHROME + code)


def test_a_load_resolves_when_the_document_it_committed_completes() -> None:
    out = _node(
        """
        const r = {};
        const w = waitForLoad(1, { expect: 'http://a.test/next' });
        // A new tab's about:blank and another tab's load are not ours; a subframe is not the page.
        nav.onCommitted.fire(frame(1, { url: 'about:blank', documentId: 'blank' }));
        nav.onBeforeNavigate.fire(frame(1, { url: 'http://a.test/next' }));
        nav.onCommitted.fire(frame(1, { url: 'http://a.test/next', documentId: 'doc1' }));
        nav.onCompleted.fire(frame(2, { documentId: 'doc1' }));
        nav.onCompleted.fire({ tabId: 1, frameId: 3, documentId: 'doc1' });
        nav.onCompleted.fire(frame(1, { documentId: 'blank' }));
        r.beforeCompleted = await outcome(w.promise);
        nav.onCompleted.fire(frame(1, { documentId: 'doc1' }));
        r.completed = await outcome(w.promise);
        w.stop();
        console.log(JSON.stringify(r));
        """
    )
    assert out == {"beforeCompleted": "pending", "completed": "loaded"}


def test_a_load_fails_with_stable_codes() -> None:
    out = _node(
        """
        const r = {};
        const failed = waitForLoad(1);
        // The tab's previous load, aborted by ours, is not our failure.
        nav.onBeforeNavigate.fire(frame(1, { url: 'http://a.test/x' }));
        nav.onErrorOccurred.fire(frame(1, { url: 'http://a.test/old', error: 'net::ERR_ABORTED' }));
        r.oldAborted = await outcome(failed.promise);
        nav.onErrorOccurred.fire(frame(1, { url: 'http://a.test/x', error: 'net::ERR_NAME_NOT_RESOLVED' }));
        r.failed = await outcome(failed.promise);
        failed.stop();
        const closed = waitForLoad(2);
        chrome.tabs.onRemoved.fire(2);
        r.closed = await outcome(closed.promise);
        closed.stop();
        // A same-document navigation (a #fragment) loads nothing: it answers at once.
        const fragment = waitForLoad(3);
        nav.onReferenceFragmentUpdated.fire(frame(3, { url: 'http://a.test/#b' }));
        r.fragment = await outcome(fragment.promise);
        fragment.stop();
        console.log(JSON.stringify(r));
        """
    )
    assert out == {
        "oldAborted": "pending",
        "failed": "navigation_failed",
        "closed": "tab_closed",
        "fragment": "loaded",
    }


def test_watches_share_one_set_of_listeners_and_stop_hearing_when_stopped() -> None:
    out = _node(
        """
        const r = {};
        const click = watchNavigation(1);
        const load = waitForLoad(1);
        const other = watchNavigation(1);
        r.listenersAfterThree = added.count;
        other.stop();
        nav.onBeforeNavigate.fire(frame(1, { url: 'http://a.test/2' }));
        nav.onCommitted.fire(frame(1, { url: 'http://a.test/2', documentId: 'd2' }));
        nav.onDOMContentLoaded.fire(frame(1, {}));
        r.settled = await click.settled(1000);
        r.state = { ...click.state };
        r.stoppedHeardNothing = other.state.started === null;
        nav.onCompleted.fire(frame(1, { documentId: 'd2' }));
        r.load = await outcome(load.promise);
        nav.onCreatedNavigationTarget.fire({ sourceTabId: 1, tabId: 9, url: 'http://a.test/popup' });
        r.opened = click.state.opened;
        click.stop();
        load.stop();
        const again = waitForLoad(1);
        again.stop();
        r.listenersAtEnd = added.count;
        console.log(JSON.stringify(r));
        """
    )
    assert out["listenersAfterThree"] == out["listenersAtEnd"] == 9
    assert out["settled"] is True
    assert out["state"] == {
        "started": "http://a.test/2",
        "committed": "http://a.test/2",
        "loaded": True,
        "failed": None,
        "closed": False,
        "opened": None,
    }
    assert out["stoppedHeardNothing"] is True
    assert out["load"] == "loaded"
    assert out["opened"] == {"tab_id": 9, "url": "http://a.test/popup"}
