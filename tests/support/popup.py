"""The extension's popup in real Chromium: opened as a tab, driven the way a person clicks it, and
photographed into test-artifacts/popup/ (ignored by git) so every state can be looked at."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.support import browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "popup"


@contextmanager
def opened(driver: webdriver.Chrome) -> Iterator[None]:
    """The popup page open in its own tab for the block; the test's tab is restored after.

    Opened as a tab, the popup speaks of the tab used last before it (the test's page).
    """
    browser.forget_pilot(driver)
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(browser.POPUP_URL)
        wait_ready(driver)
        yield
    finally:
        driver.close()
        driver.switch_to.window(original)


def wait_ready(driver: webdriver.Chrome) -> None:
    """Wait for the popup's first full drawing (it reads storage and the tabs first)."""
    browser.wait_until(lambda: driver.find_element(By.CSS_SELECTOR, "body[data-ready]"), what="the popup")


def by_id(driver: webdriver.Chrome, element_id: str) -> WebElement:
    """An element of the popup."""
    return driver.find_element(By.ID, element_id)


def shown(driver: webdriver.Chrome, element_id: str) -> bool:
    """Whether the element is rendered (not hidden)."""
    return by_id(driver, element_id).is_displayed()


def shoot(driver: webdriver.Chrome, name: str) -> Path:
    """Save the popup's body as test-artifacts/popup/NAME-light.png and NAME-dark.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    body = driver.find_element(By.TAG_NAME, "body")
    saved = ARTIFACTS / f"{name}-light.png"
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
        )
        path = ARTIFACTS / f"{name}-{scheme}.png"
        assert body.screenshot(str(path)), path
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    return saved


def sites(driver: webdriver.Chrome) -> list[str]:
    """The allowed sites the popup lists, read in one go (the popup redraws the list on every change)."""
    texts: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('#site-list li')].map((li) => li.innerText)"
    )
    return [t.split("\n")[0].split(" ")[0] for t in texts]


def _click(driver: webdriver.Chrome, css: str) -> bool:
    """Click `css` as a person would; False when the popup redrew it between the find and the click."""
    try:
        driver.find_element(By.CSS_SELECTOR, css).click()
    except StaleElementReferenceException:
        return False
    return True


@contextmanager
def only_site_of(driver: webdriver.Chrome, url: str) -> Iterator[None]:
    """The pilot on for `url`'s site alone (host and port) for the block; every site again after."""
    browser.set_pilot(driver, True)
    set_sites(driver, only=[urlsplit(url).netloc])
    try:
        yield
    finally:
        set_sites(driver, only=None)


def set_sites(driver: webdriver.Chrome, *, only: list[str] | None) -> None:
    """In the popup: every site (`only=None`) or exactly `only`, by clicking as a person would."""
    with opened(driver):
        for site in sites(driver):
            if only is None or site not in only:
                button = f'#site-list button[data-site="{site}"]'
                browser.wait_until(
                    lambda b=button: _click(driver, b) or None, what=f"a click on {site}'s remove"
                )
                browser.wait_until(lambda s=site: s not in sites(driver) or None, what=f"{site} removed")
        for site in only or []:
            if site not in sites(driver):
                by_id(driver, "site-add-input").send_keys(site)
                browser.wait_until(lambda: _click(driver, "#site-add button") or None, what="a click on Add")
                browser.wait_until(lambda s=site: s in sites(driver) or None, what=f"{site} added")
        wanted = "all" if only is None else "only"
        if driver.find_element(By.TAG_NAME, "body").get_attribute("data-scope") != wanted:
            by_id(driver, f"scope-{wanted}").find_element(By.XPATH, "..").click()
            browser.wait_until(
                lambda: driver.find_element(By.CSS_SELECTOR, f'body[data-scope="{wanted}"]'),
                what="the scope to change",
            )


def allow_scripts(driver: webdriver.Chrome, site: str, allowed: bool = True) -> None:
    """What ticking "Allow the agent's scripts on <site>" in the popup does, asked from the popup page
    itself (the only page the worker takes it from), for a site no tab needs to show."""
    with opened(driver):
        answer = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const msg = { type: 'set_script_consent', site: arguments[0], allowed: arguments[1] };
            chrome.runtime.sendMessage(msg)
              .then(done, (e) => done({ ok: false, error: String(e) }));
            """,
            site,
            allowed,
        )
    assert answer["ok"], answer


def allow_scripts_on(chromium: browser.Chromium, site: object) -> None:
    """Consent to the agent's scripts on the test server's site (`site`: its URL, or a Site with one)."""
    assert chromium.driver is not None
    url = str(getattr(site, "url", site))
    allow_scripts(chromium.driver, url.split("://", 1)[1].split("/", 1)[0])
