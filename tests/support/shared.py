"""One Chromium for a whole test session (per xdist worker), handed to each test module as if it were
new: its tabs closed, cookies and cache cleared, the extension's settings and the TabPilot dirs
emptied and its native host restarted. Starting Chromium costs seconds (tens under load) per module;
this reset costs about one.

The browser's native host inherits the TABPILOT_* dirs when the browser starts, so a module cannot
be given new dirs by a new environment. The state and data dirs are symlinks instead, pointed at fresh
directories for each module, and the runtime dir is emptied; then the old host is killed and the
extension starts the next one (its reconnect), which sees only the new dirs."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from tests.support import browser, procnet

LINKED = {"TABPILOT_STATE_DIR": "state", "TABPILOT_DATA_DIR": "data"}
HOST_TIMEOUT_S = 30
# The extension's own identity (and the launch nonce) survive a reset, as they do a browser restart.
CLEAR_STORAGE = """
const done = arguments[arguments.length - 1];
const keep = new Set(['instanceId', 'label', 'profile', 'launchNonce']);
(async () => {
  const local = await chrome.storage.local.get(null);
  await chrome.storage.local.remove(Object.keys(local).filter((k) => !keep.has(k)));
  const session = await chrome.storage.session.get(null);
  await chrome.storage.session.remove(Object.keys(session).filter((k) => k !== 'connection'));
  done('ok');
})().catch((err) => done(String(err)));
"""


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

    def reset(self) -> None:
        """Make the browser look new to the next module (the pilot off, as in a new profile)."""
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
        except (WebDriverException, AssertionError):
            # A browser that no longer answers is replaced, on the same profile.
            browser.kill(driver)
            self.chromium.driver = None
            self.chromium.start()
            driver = self.chromium.driver
            assert driver is not None
        browser.forget_pilot(driver)
        # The service worker is stopped (as Chrome does when it reclaims one): its memory (the activity
        # log, the settings it mirrors) goes, and its host sees the port close and exits. With no host
        # left, the links move, the runtime dir (which cannot be a link: the host refuses one for its
        # socket) is emptied, and the storage is cleared; that wakes a new worker, which starts a host
        # that sees only the new dirs.
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
        _clear_extension_storage(driver)
        self._wait_new_host(old)

    def _wait_new_host(self, old: list[int]) -> None:
        # The extension reconnects on its own (a quarter second after losing the port, at first).
        sockets = Path(self.env["TABPILOT_RUNTIME_DIR"])
        deadline = time.monotonic() + HOST_TIMEOUT_S
        while time.monotonic() < deadline:
            if set(host_pids(self.env)) - set(old) and any(sockets.glob("*.sock")):
                return
            time.sleep(0.05)
        raise AssertionError(f"no new native host within {HOST_TIMEOUT_S} s of the reset")

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


def _clear_extension_storage(driver: webdriver.Chrome) -> None:
    original = driver.current_window_handle
    target = driver.execute_cdp_cmd("Target.createTarget", {"url": "about:blank"})["targetId"]
    try:
        browser.wait_until(lambda: target in driver.window_handles or None, what="the new tab")
        driver.switch_to.window(target)
        driver.get(browser.POPUP_URL)
        outcome = driver.execute_async_script(CLEAR_STORAGE)
        assert outcome == "ok", f"could not clear the extension's storage: {outcome}"
    finally:
        with contextlib.suppress(WebDriverException):
            driver.execute_cdp_cmd("Target.closeTarget", {"targetId": target})
        driver.switch_to.window(original)
