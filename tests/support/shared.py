"""One Chromium for a whole test session (per xdist worker), handed to each test module as if it were
new: its tabs closed, cookies and cache cleared, the extension's settings and the TabPilot dirs
emptied and its native host restarted. Starting Chromium costs seconds (tens under load) per module;
this reset costs well under one, and the wait for the new host (Python starting: about a second)
overlaps whatever the module sets up next (its MCP client, above all): `ready()` ends it.

The browser's native host inherits the TABPILOT_* dirs when the browser starts, so a module cannot
be given new dirs by a new environment. The state and data dirs are symlinks instead, pointed at fresh
directories for each module, and the runtime dir is emptied; then the old host is killed and the
extension starts the next one, which sees only the new dirs.

The extension's settings are read and cleared through its service worker's DevTools target (the
browser's own endpoint, which chromedriver opened): no extension page is opened for it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from tabpilot import paths
from tests.support import browser, devtools, procnet

LINKED = {"TABPILOT_STATE_DIR": "state", "TABPILOT_DATA_DIR": "data"}
HOST_TIMEOUT_S = 30
# The extension's own identity (and the launch nonce) survive a reset, as they do a browser restart;
# so does the session's record of the connection, which the worker keeps current itself.
KEEP = {"local": {"instanceId", "label", "profile", "launchNonce"}, "session": {"connection"}}


def host_pids(env: dict[str, str]) -> list[int]:
    """The native hosts started with these TABPILOT_* dirs (by this browser: the dirs are private)."""
    wanted = f"TABPILOT_RUNTIME_DIR={env['TABPILOT_RUNTIME_DIR']}".encode()
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"tabpilot.cli\0native" in cmdline and wanted in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


class SharedBrowser:
    """The session's browser on one profile, and the dirs its host sees (links, re-pointed per module)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.env = {key: str(base / name) for key, name in LINKED.items()}
        self.env["TABPILOT_RUNTIME_DIR"] = str(base / "run")
        self.env["TABPILOT_TEST_BASE"] = str(base)
        self.generation = 0
        self._point()
        profile = base / "profile"
        browser.prepare_profile(profile, self.env)
        # What the installer wrote into the data dir (the host's launcher, the install record) is
        # copied into every module's new data dir.
        self.installed = base / "installed"
        shutil.copytree(self.env["TABPILOT_DATA_DIR"], self.installed, symlinks=True)
        self.chromium = browser.Chromium(profile, self.env)
        self.chromium.start()
        self.used = False
        # The hosts before the last reset; a new one is awaited (ready) before a test uses the browser.
        self._hosts_before: list[int] | None = []

    def _point(self) -> None:
        """Point the dir links at a new, empty generation (the data dir gets the install's files)."""
        self.generation += 1
        target = self.base / f"g{self.generation}"
        for key, name in LINKED.items():
            real = target / name
            if name == "data" and self.generation > 1:
                shutil.copytree(self.installed, real, symlinks=True)
            else:
                real.mkdir(mode=0o700, parents=True)
            link = Path(self.env[key])
            staged = link.with_name(f".{name}.new")
            staged.unlink(missing_ok=True)
            staged.symlink_to(real)
            os.replace(staged, link)

    def reset(self, forget: Sequence[str] = ()) -> None:
        """Make the browser look new to the next module (the pilot off, as in a new profile); its new
        host may still be starting (`ready` waits for it). What pages stored under the `forget` origins
        (the session's servers) goes too: cookies and the cache go for every site."""
        if not self.used:
            self.used = True  # the first module has it new
            return
        if self.chromium.driver is None:
            self.chromium.start()
        driver = self.chromium.driver
        assert driver is not None
        try:
            _close_tabs(driver)
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            driver.execute_cdp_cmd("Network.clearBrowserCache", {})
            for url in forget:
                parts = urlsplit(url)
                origin = f"{parts.scheme}://{parts.netloc}"
                driver.execute_cdp_cmd(
                    "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
                )
        except (WebDriverException, AssertionError):
            # A browser that no longer answers is replaced, on the same profile.
            browser.kill(driver)
            self.chromium.driver = None
            self.chromium.start()
            driver = self.chromium.driver
            assert driver is not None
        browser.forget_pilot(driver)
        # Settings go first, while the worker still runs: it winds down what the pilot had (background
        # tabs, site blocks, content scripts) as when a person switches it off, and the next worker
        # reads clean storage from its first line.
        _forget_settings(driver)
        # The service worker is stopped (as Chrome does when it reclaims one): its memory (the activity
        # log, the settings it mirrors) goes, and its host sees the port close and exits. With no host
        # left, the links move and the runtime dir (which cannot be a link: the host refuses one for its
        # socket) is emptied; then a new worker starts, and with it a host that sees only the new dirs.
        old = host_pids(self.env)
        for target in browser.service_worker_targets(driver):
            driver.execute_cdp_cmd("Target.closeTarget", {"targetId": target["targetId"]})
        _wait_gone(old)
        self._point()
        # A host started before the links moved (a worker woken meanwhile) would serve the old dirs.
        _wait_gone(list(set(host_pids(self.env)) - set(old)), patience_s=0)
        for entry in Path(self.env["TABPILOT_RUNTIME_DIR"]).glob("*"):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        shutil.rmtree(self.base / f"g{self.generation - 1}", ignore_errors=True)
        _wake_worker(driver)
        # What the old worker wrote while it wound down (its activity log's last batch, say): it is
        # gone now, and the new one writes only what KEEP keeps before anyone touches the browser.
        _forget_settings(driver)
        self._hosts_before = old

    def host_up(self) -> bool:
        """Whether the host the last reset (or the start) awaits listens (`ready` then returns at once)."""
        if self._hosts_before is None:
            return True
        # The socket first: a look at one folder, where the process list is a read of every process's.
        if not any(Path(self.env["TABPILOT_RUNTIME_DIR"]).glob("*.sock")):
            return False
        if set(host_pids(self.env)) - set(self._hosts_before):
            self._hosts_before = None
            return True
        return False

    def ready(self) -> None:
        """Wait for the new native host to listen."""
        deadline = time.monotonic() + HOST_TIMEOUT_S
        while not self.host_up():
            if time.monotonic() > deadline:
                raise AssertionError(f"no new native host within {HOST_TIMEOUT_S} s of the reset")
            time.sleep(0.05)

    def quit(self) -> None:
        self.chromium.quit()


def _wait_gone(pids: list[int], patience_s: float = HOST_TIMEOUT_S / 3) -> None:
    """Wait for the hosts to exit (they flush what they hold first); kill any still there after that."""
    deadline = time.monotonic() + patience_s
    while time.monotonic() < deadline and any(procnet.alive(pid) for pid in pids):
        time.sleep(0.05)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _close_tabs(driver: webdriver.Chrome) -> None:
    """Every tab closed but one, which shows about:blank (a new browser's one tab)."""
    handles = driver.window_handles
    for handle in handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(handles[0])
    driver.get("about:blank")


def _wake_worker(driver: webdriver.Chrome) -> None:
    """Start the extension's service worker as Chrome does for an event it listens for."""
    driver.execute_cdp_cmd("ServiceWorker.enable", {})
    try:
        driver.execute_cdp_cmd("ServiceWorker.startWorker", {"scopeURL": paths.EXTENSION_ORIGIN})
    finally:
        driver.execute_cdp_cmd("ServiceWorker.disable", {})


def _forget_settings(driver: webdriver.Chrome) -> None:
    """The extension's storage emptied but for KEEP, through its worker (started if none runs; a
    worker that stops under the call, as Chrome may stop an idle one, is started again once)."""
    for attempt in range(2):
        session = devtools.worker_session(driver)
        if session is None:
            _wake_worker(driver)
            session = browser.wait_until(lambda: devtools.worker_session(driver), what="the service worker")
        try:
            with session:
                for area, kept in KEEP.items():
                    stored = devtools.storage(session, area)
                    devtools.remove_storage(session, area, [key for key in stored if key not in kept])
            return
        except devtools.DevToolsError:
            if attempt:
                raise
