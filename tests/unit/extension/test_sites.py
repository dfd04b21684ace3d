"""The sites the person allows: the extension's host patterns (lib/sites.js, run under node) and the
launcher's `--sites` (browser/profile.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabpilot.browser import launch, profile
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.extension.test_extension_js import _run_node, needs_node  # pyright: ignore[reportPrivateUsage]


@needs_node
def test_host_patterns_match_sites_ports_and_subdomains() -> None:
    out = _run_node(
        """
        globalThis.chrome = { storage: { session: { async set() {} } } };
        const { allows, matches, normalizePattern, siteOf } = await import('./worker/lib/sites.js');
        const cases = [
          ['jira.acme.com', 'https://jira.acme.com/browse/X-1'],
          ['jira.acme.com', 'http://jira.acme.com:8080/'],
          ['jira.acme.com', 'https://evil-jira.acme.com/'],
          ['jira.acme.com', 'https://jira.acme.com.evil.test/'],
          ['*.acme.com', 'https://acme.com/'],
          ['*.acme.com', 'https://a.b.acme.com/x'],
          ['*.acme.com', 'https://notacme.com/'],
          ['127.0.0.1:8000', 'http://127.0.0.1:8000/a'],
          ['127.0.0.1:8000', 'http://127.0.0.1:8001/a'],
          ['example.com:443', 'https://example.com/'],
          ['example.com', 'file:///etc/passwd'],
          ['example.com', 'not a url'],
        ];
        const only = { all: false, sites: ['jira.acme.com'] };
        console.log(JSON.stringify({
          matched: cases.map(([p, u]) => matches(p, u)),
          normal: ['  HTTPS://Jira.Acme.com/browse?x=1 ', '*.Acme.COM.', '127.0.0.1:8000', 'a b', '', '*',
                   'x:99999999', 7].map(normalizePattern),
          site: [siteOf('http://127.0.0.1:8000/x'), siteOf('https://a.test:443/'),
                 siteOf('data:text/plain,x')],
          allows: [allows(only, 'about:blank'), allows(only, ''), allows(only, 'data:text/plain,x'),
                   allows(only, 'https://jira.acme.com/'),
                   allows({ all: true, sites: [] }, 'https://x.test/')],
        }));
        """
    )
    r = json.loads(out)
    assert r["matched"] == [True, True, False, False, True, True, False, True, False, True, False, False]
    assert r["normal"] == ["jira.acme.com", "*.acme.com", "127.0.0.1:8000", None, None, None, None, None]
    assert r["site"] == ["127.0.0.1:8000", "a.test", None]
    assert r["allows"] == [True, True, False, True, True]


@needs_node
def test_a_tab_outside_the_scope_is_refused_and_asked_for() -> None:
    out = _run_node(
        """
        const local = { sites: { all: false, sites: ['a.test'] } };
        const session = {};
        const tabs = new Map([[1, { id: 1, url: 'https://a.test/' }],
                              [2, { id: 2, url: 'https://b.test:8443/x' }],
                              [3, { id: 3, url: 'https://a.test/', pendingUrl: 'https://b.test/' }]]);
        globalThis.chrome = {
          storage: {
            local: { async get(k) { return k in local ? { [k]: local[k] } : {}; } },
            session: {
              async get(k) { return k in session ? { [k]: session[k] } : {}; },
              async set(items) { Object.assign(session, items); },
            },
          },
          tabs: { async get(id) { return tabs.get(id); } },
        };
        const { checkTab, checkUrl } = await import('./worker/lib/sites.js');
        const outcome = async (p) => {
          try { await p; return 'ok'; } catch (e) { return { code: e.code, data: e.data }; }
        };
        console.log(JSON.stringify({
          url: await outcome(checkUrl('http://c.test/')),
          own: await outcome(checkTab(1)),
          other: await outcome(checkTab(2)),
          pending: await outcome(checkTab(3)),
          request: session.siteRequest.site,
        }));
        """
    )
    r = json.loads(out)
    assert r["own"] == "ok"
    assert r["other"] == {"code": ErrorCode.SITE_NOT_ALLOWED, "data": {"site": "b.test:8443", "tab_id": 2}}
    assert r["pending"]["code"] == ErrorCode.SITE_NOT_ALLOWED and r["pending"]["data"]["site"] == "b.test"
    assert r["url"]["code"] == ErrorCode.SITE_NOT_ALLOWED
    # Only the URL the agent tried to load is a request; tabs that merely show a site are not.
    assert r["request"] == "c.test"


def test_sites_option_is_parsed_into_patterns() -> None:
    assert profile.site_patterns(" Jira.acme.com, *.acme.com,127.0.0.1:8000,jira.acme.com,") == [
        "jira.acme.com",
        "*.acme.com",
        "127.0.0.1:8000",
    ]
    for bad in ["", " , ", "http://x.test/", "a b", "x" * 300]:
        with pytest.raises(TabPilotError) as info:
            profile.site_patterns(bad)
        assert info.value.code == ErrorCode.INVALID_PARAMS


def test_launch_config_carries_sites_and_a_restart_reuses_the_last_one(tmp_path: Path) -> None:
    folder = tmp_path / "prof"
    assert profile.previous_config(folder) is None
    src = tmp_path / "src"
    src.mkdir()
    (src / "manifest.json").write_text('{"manifest_version": 3}')
    config = profile.launch_config("p", "0123456789abcdef", True, ["a.test"])
    profile.copy_extension(folder, config, source=src)
    assert config["sites"] == ["a.test"] and config["pilot"] is True
    assert profile.previous_config(folder) == config
    assert profile.launch_config("p", "0123456789abcdef", False)["sites"] is None
    (folder / "extension" / "launch-config.json").write_text("[not json")
    assert profile.previous_config(folder) is None


@needs_node
def test_activity_rows_read_as_sentences() -> None:
    out = _run_node(
        """
        const { describe } = await import('./worker/lib/activity_text.js');
        const rows = [
          { action: 'extract', site: 'acme.test', count: 31, outcome: 'ok' },
          { action: 'extract', site: 'acme.test', count: 1, outcome: 'ok' },
          { action: 'navigate', site: 'jira.acme.com', outcome: 'ok' },
          { action: 'navigate', site: 'b.test', outcome: 'site_not_allowed' },
          { action: 'click', site: null, tab: 5, outcome: 'stale_ref' },
          { action: 'screenshot', site: 'a.test', outcome: 'ok' },
          { action: 'brand_new', outcome: 'ok' },
        ];
        console.log(JSON.stringify(rows.map(describe)));
        """
    )
    assert json.loads(out) == [
        {"what": "read 31 rows on acme.test", "outcome": ""},
        {"what": "read 1 row on acme.test", "outcome": ""},
        {"what": "opened jira.acme.com", "outcome": ""},
        {"what": "tried to open b.test", "outcome": "refused: site not allowed"},
        {"what": "clicked", "outcome": "failed: stale_ref"},
        {"what": "took a screenshot of a.test", "outcome": ""},
        {"what": "brand new", "outcome": ""},
    ]


def test_a_launch_sets_the_pilot_and_sites_and_a_restart_by_the_bridge_keeps_them(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    # A browser that exits at once: enough to see the launch config each launch leaves behind.
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    written: list[dict[str, object]] = []
    for pilot, sites in ((True, ["a.test"]), (None, None), (False, None)):
        with pytest.raises(TabPilotError):
            launch.launch_profile("scoped", headless=True, pilot=pilot, sites=sites, browser_binary=str(fake))
        config = profile.previous_config(profile.profile_dir("scoped"))
        assert config is not None
        written.append(config)
    person, restart, without_pilot = written
    assert person["pilot"] is True and person["sites"] == ["a.test"]
    assert restart == person  # same nonce: the extension changes nothing
    assert without_pilot["pilot"] is False and without_pilot["sites"] is None
    assert without_pilot["nonce"] != person["nonce"]
