"""The browser's DevTools endpoint, the one chromedriver opened for itself, for what a WebDriver
session cannot reach: the extension's service worker, whose storage it can read and clear without
opening an extension page (a page costs about a second under load, and wakes the worker early)."""

from __future__ import annotations

import itertools
import json
import urllib.request
from typing import Any

import websocket
from selenium import webdriver

from tabpilot import paths

TIMEOUT_S = 10


class DevToolsError(Exception):
    """The endpoint refused a command, or did not answer it in time."""


class Session:
    """One DevTools connection to one target (commands in turn; events read past and dropped)."""

    def __init__(self, url: str) -> None:
        # No Origin header: Chromium refuses a WebSocket from an origin it was not told to allow.
        try:
            self._ws = websocket.create_connection(url, timeout=TIMEOUT_S, suppress_origin=True)
        except (OSError, websocket.WebSocketException) as exc:
            raise DevToolsError(f"cannot connect to {url}: {exc!r}") from exc
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self._ids)
        try:
            self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
            while True:
                answer = json.loads(self._ws.recv())
                if answer.get("id") == msg_id:
                    break
        except (OSError, websocket.WebSocketException) as exc:
            raise DevToolsError(f"{method}: {exc!r}") from exc
        if "error" in answer:
            raise DevToolsError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def close(self) -> None:
        self._ws.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _targets(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    try:
        with urllib.request.urlopen(f"http://{address}/json/list", timeout=TIMEOUT_S) as answer:
            return json.load(answer)
    except OSError as exc:
        raise DevToolsError(f"no target list from {address}: {exc!r}") from exc


def worker_session(driver: webdriver.Chrome) -> Session | None:
    """A session on the extension's running service worker (None when none runs)."""
    for target in _targets(driver):
        if target["type"] == "service_worker" and target["url"].startswith(paths.EXTENSION_ORIGIN):
            return Session(target["webSocketDebuggerUrl"])
    return None


def storage(session: Session, area: str) -> dict[str, Any]:
    """The extension's `chrome.storage[area]`, read through a session on one of its targets."""
    return session.call("Extensions.getStorageItems", id=paths.EXTENSION_ID, storageArea=area)["data"]


def remove_storage(session: Session, area: str, keys: list[str]) -> None:
    """Remove `keys` from `chrome.storage[area]` (the extension sees the change, as for its own)."""
    if keys:
        session.call("Extensions.removeStorageItems", id=paths.EXTENSION_ID, storageArea=area, keys=keys)
