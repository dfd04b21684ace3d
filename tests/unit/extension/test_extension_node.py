"""The extension's pure pieces run under node without a browser: result chunking, the in-page
serializer, the settings mirror, the choice of tab."""

from __future__ import annotations

import json

from tests.unit.extension.test_extension_js import _run_node, needs_node  # pyright: ignore[reportPrivateUsage]


@needs_node
def test_result_text_is_chunked_without_splitting_surrogate_pairs() -> None:
    out = _run_node(
        """
        import { splitText, resultMessages, JsonText } from './worker/lib/reply.js';
        const text = JSON.stringify({ s: 'a😀'.repeat(5000) + 'é'.repeat(333) });
        const report = {};
        for (const size of [2, 3, 7, 64, 1000]) {
          const pieces = splitText(text, size);
          report[size] = {
            joined: pieces.join('') === text,
            maxLen: Math.max(...pieces.map((p) => p.length)),
            loneHigh: pieces.some((p) => /[\\ud800-\\udbff]$/.test(p)),
          };
        }
        const msgs = resultMessages(7, new JsonText(text), 1000);
        report.msgs = {
          types: [...new Set(msgs.map((m) => m.type))],
          seqs: msgs.every((m, i) => m.seq === i && m.id === 7),
          finals: msgs.map((m) => m.final).filter(Boolean).length,
          lastFinal: msgs[msgs.length - 1].final,
          joined: msgs.map((m) => m.data).join('') === text,
        };
        report.small = resultMessages(1, { pong: true });
        report.smallText = resultMessages(2, new JsonText('{"a":1}'));
        console.log(JSON.stringify(report));
        """
    )
    report = json.loads(out)
    for size in ("2", "3", "7", "64", "1000"):
        assert report[size]["joined"] and not report[size]["loneHigh"]
        assert report[size]["maxLen"] <= int(size)
    assert report["msgs"] == {
        "types": ["result_chunk"],
        "seqs": True,
        "finals": 1,
        "lastFinal": True,
        "joined": True,
    }
    assert report["small"] == [{"type": "result", "id": 1, "value": {"pong": True}}]
    assert report["smallText"] == [{"type": "result", "id": 2, "value_json": '{"a":1}'}]


@needs_node
def test_page_runner_takes_expressions_and_bodies_and_serializes_safely() -> None:
    out = _run_node(
        """
        // Stand-ins for the DOM classes the serializer tests for.
        globalThis.NodeList = class {};
        globalThis.HTMLCollection = class {};
        const { runInPage } = await import('./main_world/run_script.js');
        const scripts = {
          expr: '1 + 1',
          body: 'return 40 + 2',
          semicolon: '"x";',
          awaited: 'await Promise.resolve(5)',
          promise: 'Promise.resolve([1, undefined])',
          cycle: 'const a = { n: 10n, f: function foo() {} }; a.self = a; return a',
          shared: 'const o = { v: 1 }; return [o, o]',
          node: '({ nodeType: 1, nodeName: "DIV", localName: "div", id: "x", className: "a b" })',
          thrown: 'throw new TypeError("bad")',
          syntax: 'return (',
          nothing: 'let x = 1',
          big: '"z".repeat(2000)',
        };
        const out = {};
        for (const [k, s] of Object.entries(scripts)) {
          const r = await runInPage(s, 1000);
          out[k] = typeof r === 'string' ? JSON.parse(r) : r;
        }
        console.log(JSON.stringify(out));
        """
    )
    r = json.loads(out)
    assert r["expr"] == {"success": True, "result": 2}
    assert r["body"] == {"success": True, "result": 42}
    assert r["semicolon"] == {"success": True, "result": "x"}
    assert r["awaited"] == {"success": True, "result": 5}
    assert r["promise"] == {"success": True, "result": [1, None]}
    assert r["cycle"]["result"] == {"n": "10", "f": "[function foo]", "self": "[circular]"}
    assert r["shared"]["result"] == [{"v": 1}, {"v": 1}]
    assert r["node"]["result"] == "[element <div#x.a.b>]"
    assert (
        r["thrown"]["success"] is False and r["thrown"]["error"] == "TypeError: bad" and r["thrown"]["stack"]
    )
    assert r["syntax"]["success"] is False and r["syntax"]["error"].startswith("SyntaxError")
    assert r["nothing"] == {"success": True, "result": None}
    assert r["big"] == {"too_large": 2002}


@needs_node
def test_page_runner_caps_long_arrays_and_says_so() -> None:
    out = _run_node(
        """
        globalThis.NodeList = class {};
        globalThis.HTMLCollection = class {};
        const { runInPage } = await import('./main_world/run_script.js');
        const out = {};
        for (const [k, s] of Object.entries({
          long: '[1, 2, 3, 4, 5]',
          nested: '({ rows: [[1, 2, 3, 4], [5]] })',
          typed: 'new Uint8Array(6)',
          exact: '[1, 2, 3]',
        })) out[k] = JSON.parse(await runInPage(s, 10000, null, 3));
        // The fallback hands the agent's code in compiled; the script text is then unused.
        out.given = JSON.parse(await runInPage(null, 10000, async function () { return 'given'; }));
        console.log(JSON.stringify(out));
        """
    )
    r = json.loads(out)
    assert r["long"] == {
        "success": True,
        "result": [1, 2, 3, "[2 more items not shown: 5 in all]"],
        "capped": True,
    }
    assert r["nested"]["result"] == {"rows": [[1, 2, 3, "[1 more items not shown: 4 in all]"], [5]]}
    assert r["nested"]["capped"] is True
    assert r["typed"]["result"] == [0, 0, 0, "[3 more items not shown: 6 in all]"]
    assert r["exact"] == {"success": True, "result": [1, 2, 3]}
    assert r["given"] == {"success": True, "result": "given"}


@needs_node
def test_settings_mirror_is_never_more_on_than_storage() -> None:
    # A fake chrome.storage.local that answers in call order, each answer held until the test lets
    # it through: reads see storage as it was when they were made, as Chrome's do.
    out = _run_node(
        """
        const store = { pilot: true, trackedTabId: 7 };
        const held = [];
        const later = (fn) => new Promise((resolve) => held.push(() => resolve(fn())));
        globalThis.chrome = { storage: { local: {
          get(keys) {
            const got = {};
            for (const k of [keys].flat()) if (k in store) got[k] = store[k];
            return later(() => got);
          },
          set(items) { Object.assign(store, items); return later(() => undefined); },
          remove(keys) { for (const k of [keys].flat()) delete store[k]; return later(() => undefined); },
        } } };
        const tick = () => new Promise((r) => setTimeout(r, 0));
        const flush = async () => {
          await tick();
          while (held.length) { held.shift()(); await tick(); }
        };
        const state = await import('./worker/lib/state.js');
        const pilot = async () => { await flush(); return state.getPilot(); };
        const r = {};

        state.loadState();
        await flush();
        r.loaded = [await state.getPilot(), await state.getTrackedTabId()];

        // Off holds at once, before storage has it and before any event.
        const off = state.setPilot(false);
        r.offAtOnce = await state.getPilot();
        await flush(); await off;

        // A late event from an earlier "on" is checked against storage, which says off.
        state.applyStorageChanges({ pilot: { newValue: true } });
        r.lateOnEvent = await pilot();

        // A read of "on" in flight when the pilot goes off is dropped.
        store.pilot = true;
        state.applyStorageChanges({ pilot: { newValue: true } });  // starts a read that sees true
        state.setPilot(false);
        r.readThenOff = await pilot();

        // On takes effect once storage confirms it.
        const on = state.setPilot(true);
        await flush(); await on;
        r.on = await state.getPilot();

        // Tracking follows local writes at once and storage events after a read.
        state.setTrackedTab(null);
        r.untracked = await state.getTrackedTabId();
        await flush();
        store.trackedTabId = 9;
        state.applyStorageChanges({ trackedTabId: { newValue: 9 } });
        await flush();
        r.trackedByEvent = await state.getTrackedTabId();
        const untrack = state.untrack(9);
        await flush(); await untrack;
        r.afterClose = [await state.getTrackedTabId(), 'trackedTabId' in store];
        console.log(JSON.stringify(r));
        """
    )
    assert json.loads(out) == {
        "loaded": [True, 7],
        "offAtOnce": False,
        "lateOnEvent": False,
        "readThenOff": False,
        "on": True,
        "untracked": None,
        "trackedByEvent": 9,
        "afterClose": [None, False],
    }


@needs_node
def test_tab_choice_maps_missing_and_closed_tabs_without_looking_them_up_first() -> None:
    out = _run_node(
        """
        const tabs = new Map([[1, { id: 1, url: 'http://a/', active: true, windowId: 1 }],
                              [2, { id: 2, url: 'chrome://version/', active: false, windowId: 1 }]]);
        const store = { trackedTabId: 5 };
        const calls = [];
        const noTab = (id) => new Error(`No tab with id: ${id}.`);
        globalThis.chrome = {
          runtime: { getURL: (p) => `chrome-extension://x/${p}` },
          storage: { local: {
            async get(k) { return k in store ? { [k]: store[k] } : {}; },
            async set(items) { Object.assign(store, items); },
            async remove(keys) { for (const k of keys) delete store[k]; },
          } },
          tabs: {
            async get(id) {
              calls.push(`get ${id}`);
              if (!tabs.has(id)) throw noTab(id);
              return tabs.get(id);
            },
            async query(q) {
              calls.push('query');
              return [...tabs.values()].filter((t) => !q.active || t.active);
            },
          },
        };
        const { onTab, tabFailure } = await import('./worker/lib/target.js');
        const act = async (id) => {
          calls.push(`act ${id}`);
          if (!tabs.has(id)) throw noTab(id);
          if (id === 2) throw new Error('Cannot access a chrome:// URL');
          return `ran in ${id}`;
        };
        const outcome = async (p) => {
          try { return await p; } catch (e) { return { code: e.code, message: e.message }; }
        };
        const r = {};
        const step = async (name, run) => { calls.length = 0; r[name] = [await outcome(run()), [...calls]]; };
        await step('named', () => onTab(1, act));
        await step('namedMissing', () => onTab(9, act));
        await step('notAnId', () => onTab('1', act));
        await step('negative', () => onTab(-5, act));
        await step('tooBig', () => onTab(2 ** 31, act));
        await step('trackedGone', () => onTab(undefined, act));
        r.trackingStopped = !('trackedTabId' in store);
        await step('active', () => onTab(null, act));
        const what = (tab) => `cannot run a script in tab ${tab.id} (${tab.url})`;
        const fail = (e, id) => tabFailure(e, id, 'script_error', what).then((err) => { throw err; });
        r.refused = await outcome(onTab(2, act).catch((e) => fail(e, 2)));
        tabs.delete(1);
        tabs.delete(2);
        await step('noTabAtAll', () => onTab(null, act));
        const newTab = async () => {
          tabs.set(3, { id: 3, active: true });
          return tabs.get(3);
        };
        await step('orElse', () => onTab(null, act, { orElse: newTab }));
        const closing = async (id) => { tabs.delete(id); throw noTab(id); };
        await step('activeClosed', () => onTab(null, closing));
        r.removed = await outcome(fail(new Error('Frame with ID 0 was removed.'), 7));
        console.log(JSON.stringify(r));
        """
    )
    r = json.loads(out)
    assert r["named"] == ["ran in 1", ["act 1"]]
    assert r["namedMissing"] == [
        {"code": "tab_not_found", "message": "no tab with id 9: list tabs to see the open ones"},
        ["act 9"],
    ]
    assert r["notAnId"][0]["code"] == "invalid_params" and r["notAnId"][1] == []
    assert r["negative"] == [
        {"code": "tab_not_found", "message": "no tab with id -5: list tabs to see the open ones"},
        [],
    ]
    assert r["tooBig"][0]["code"] == "tab_not_found" and r["tooBig"][1] == []
    assert r["trackedGone"] == ["ran in 1", ["act 5", "query", "act 1"]]
    assert r["trackingStopped"] is True
    assert r["active"] == ["ran in 1", ["query", "act 1"]]
    assert r["noTabAtAll"][0]["code"] == "tab_not_found"
    assert r["orElse"] == ["ran in 3", ["query", "query", "act 3"]]
    assert r["activeClosed"][0] == {"code": "tab_closed", "message": "tab 3 was closed"}
    assert r["refused"] == {
        "code": "script_error",
        "message": "cannot run a script in tab 2 (chrome://version/): Cannot access a chrome:// URL",
    }
    assert r["removed"] == {"code": "tab_closed", "message": "tab 7 was closed"}


@needs_node
def test_a_timeout_is_kept_as_asked_up_to_what_a_timer_holds() -> None:
    out = _run_node(
        """
        import { timeoutParam } from './worker/lib/deadline.js';
        const asked = [undefined, 3600000, 2 ** 31 - 1, 2 ** 31, 0, -1, 1.5, '5'];
        console.log(JSON.stringify(asked.map((v) => timeoutParam(v, 5000))));
        """
    )
    assert json.loads(out) == [5000, 3_600_000, 2**31 - 1, None, None, None, None, None]
