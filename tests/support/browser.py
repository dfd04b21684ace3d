"""Real Chromium for end-to-end tests: Selenium + Debian's chromedriver, a temporary user-data-dir,
the real extension loaded unpacked, and the native host registered by the real installer."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from tabpilot import paths
from tabpilot.browser.argv import BASE_FLAGS

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
T = TypeVar("T")
POPUP_URL = f"{paths.EXTENSION_ORIGIN}popup.html"
# The dedicated-profile flags (off the network, stable viewport), plus root's --no-sandbox.
FLAGS = [*BASE_FLAGS, "--no-sandbox", "--headless=new", "--window-size=1280,800"]
PAGE_LOAD_TIMEOUT_S = 30
# A first tab that answers does so within 0.3-2.1 s even with three browsers starting at once on 2
# cores (24 of 27 launches; the other 3 never answered): a stuck one is given up on after 5 s, where
# each cost a worker 20 s (twice in one run of the suite).
FIRST_TAB_TIMEOUT_S = 5
LAUNCHES = 5  # a fresh CI run once saw the first tab stuck in three launches in a row
# What set_pilot last made of the pilot, per browser session (chromedriver's session id): a test that
# needs it on finds it so from the test before most of the time, and the popup is not opened for it.
_pilot_known: dict[str, bool] = {}


def tabpilot_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the real `tabpilot` command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def prepare_profile(user_data_dir: Path, env: dict[str, str]) -> None:
    """Developer mode on (or a reload disables the unpacked extension) and the host registered."""
    default = user_data_dir / "Default"
    default.mkdir(parents=True, exist_ok=True)
    prefs = default / "Preferences"
    if not prefs.exists():
        prefs.write_text(json.dumps({"extensions": {"ui": {"developer_mode": True}}}))
    tabpilot_cli("install", "--browser", "chromium", "--user-data-dir", str(user_data_dir), env=env)


def start_chromium(
    user_data_dir: Path, env: dict[str, str], extension_dir: Path | None = None
) -> webdriver.Chrome:
    """Start Chromium with the extension; its native host inherits `env` (the TABPILOT_* dirs)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={user_data_dir}")
    options.add_argument(f"--load-extension={extension_dir or paths.extension_dir()}")
    for _ in range(LAUNCHES):
        service = Service(CHROMEDRIVER, env={**os.environ, **env})
        driver = webdriver.Chrome(options=options, service=service)
        # chromedriver waits for a window's pending navigation before most commands, by default up
        # to 300 s; a tab that never loads should fail fast instead.
        driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT_S)
        if _first_tab_answers(driver):
            return driver
        # Now and then the first tab of a new browser never loads, and every later command on it
        # hangs (seen on Chromium 156, more often under load): start the browser again.
        kill(driver)
    raise AssertionError(f"Chromium's first tab never loaded in {LAUNCHES} launches")


def _first_tab_answers(driver: webdriver.Chrome) -> bool:
    done: list[bool] = []

    def probe() -> None:
        # Anything may come out of a call to a browser that is being killed under it.
        with contextlib.suppress(Exception):
            driver.get("about:blank")
            done.append(driver.execute_script("return 1") == 1)

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(FIRST_TAB_TIMEOUT_S)
    return bool(done and done[0])


def _children(driver: webdriver.Chrome) -> list[tuple[int, str]]:
    """(pid, command line) of each process chromedriver started (the browser)."""
    driver_pid = driver.service.process.pid
    found: list[tuple[int, str]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == driver_pid:
            found.append((int(entry.name), cmdline))
    return found


def kill(driver: webdriver.Chrome) -> None:
    """Stop chromedriver and its browser without asking either (they may not answer)."""
    for pid, _ in _children(driver):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    process = driver.service.process
    process.kill()
    process.wait(10)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _flip_in_popup(driver: webdriver.Chrome, tab: str, enabled: bool) -> None:
    wait_until(lambda: tab in driver.window_handles or None, what="chromedriver to see the new tab")
    driver.switch_to.window(tab)
    driver.get(POPUP_URL)
    wait_until(lambda: driver.find_element(By.CSS_SELECTOR, "body[data-ready]"), what="the popup")
    toggle = driver.find_element(By.ID, "pilot-toggle")
    if toggle.is_selected() != enabled:
        toggle.click()
        if enabled:
            # Switching on asks where: "All sites" is what these tests need (test_sites.py tries both).
            driver.find_element(By.ID, "pilot-all-sites").click()
        # The checkbox moves at the click; the worker has the new state once the popup marks it applied.
        wanted = "true" if enabled else "false"
        wait_until(
            lambda: toggle.get_attribute("data-applied") == wanted or None, what="the worker to apply it"
        )
    wait_until(lambda: toggle.is_selected() == enabled or None, what="the toggle to change")


def set_pilot(driver: webdriver.Chrome, enabled: bool) -> None:
    """Flip the AI Web Pilot toggle the way a person does: in the extension's popup page."""
    forget_pilot(driver)
    original = driver.current_window_handle
    failure: Exception | None = None
    for _ in range(3):
        # A tab made by CDP, not switch_to.new_window: new_window waits for the new tab's first load,
        # and a new tab that never loads (a Chromium quirk seen under load) would hang it for good.
        # This returns at once; a stuck tab fails the bounded page load below and is closed.
        target = driver.execute_cdp_cmd("Target.createTarget", {"url": "about:blank"})["targetId"]
        try:
            _flip_in_popup(driver, target, enabled)
            _pilot_known[driver.session_id] = enabled
            return
        except (WebDriverException, AssertionError) as exc:
            failure = exc
        finally:
            with contextlib.suppress(WebDriverException):
                driver.execute_cdp_cmd("Target.closeTarget", {"targetId": target})
            driver.switch_to.window(original)
    raise AssertionError(f"could not set the pilot {'on' if enabled else 'off'}: {failure!r}")


def ensure_pilot_on(driver: webdriver.Chrome) -> None:
    """The pilot on (all sites), through the popup unless set_pilot switched it on last and nothing
    since could have changed it (a popup opened by a test, a reset, a browser restart all forget it)."""
    if not _pilot_known.get(driver.session_id, False):
        set_pilot(driver, True)


def forget_pilot(driver: webdriver.Chrome) -> None:
    """The pilot's state is no longer known (it may have been changed other than by set_pilot)."""
    _pilot_known.pop(driver.session_id, None)


def service_worker_targets(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """CDP targets of our extension's service worker."""
    targets = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    return [t for t in targets if t["type"] == "service_worker" and paths.EXTENSION_ID in t["url"]]


def kill_service_worker(driver: webdriver.Chrome) -> None:
    """Stop the extension's service worker as Chrome does when it reclaims it."""
    [target] = wait_until(lambda: service_worker_targets(driver) or None, what="the service worker")
    driver.execute_cdp_cmd("Target.closeTarget", {"targetId": target["targetId"]})


def wait_until(probe: Callable[[], T | None], *, timeout_s: float = 10, what: str = "condition") -> T:
    """Poll `probe` until it returns something truthy, bounded by `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value:
                return value
        except Exception as exc:  # the element may not exist yet
            last_error = exc
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}: {last_error!r}")


class Chromium:
    """A restartable browser on one profile."""

    def __init__(self, user_data_dir: Path, env: dict[str, str]) -> None:
        self.user_data_dir = user_data_dir
        self.env = env
        self.driver: webdriver.Chrome | None = None

    def start(self) -> webdriver.Chrome:
        """Start (or restart) the browser on the same profile."""
        self.driver = start_chromium(self.user_data_dir, self.env)
        return self.driver

    def browser_pid(self) -> int:
        """The main browser process (chromedriver's child on our profile)."""
        assert self.driver is not None
        for pid, cmdline in _children(self.driver):
            if str(self.user_data_dir) in cmdline:
                return pid
        raise AssertionError("browser process not found")

    def crash(self) -> None:
        """Kill the browser with SIGKILL, as a crash would (no clean shutdown of anything)."""
        os.kill(self.browser_pid(), signal.SIGKILL)
        assert self.driver is not None
        with contextlib.suppress(Exception):
            self.driver.quit()
        self.driver = None

    def quit(self) -> None:
        """Quit the browser (its native host sees EOF and must exit)."""
        if self.driver is not None:
            self.driver.quit()
            self.driver = None
