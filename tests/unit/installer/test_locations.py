"""Where the native host manifest goes, per OS x browser, as a table."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath

import pytest

from tabpilot_installer import browsers
from tabpilot_installer.machine import Machine

LINUX = Machine("linux", PurePosixPath("/home/ann"), {}, PurePosixPath("/home/ann/.local/share/tabpilot"))
MAC = Machine(
    "darwin",
    PurePosixPath("/Users/ann"),
    {},
    PurePosixPath("/Users/ann/Library/Application Support/tabpilot"),
)
WIN = Machine(
    "win32",
    PureWindowsPath(r"C:\Users\ann"),
    {"LOCALAPPDATA": r"C:\Users\ann\AppData\Local", "APPDATA": r"C:\Users\ann\AppData\Roaming"},
    PureWindowsPath(r"C:\Users\ann\AppData\Local\tabpilot"),
)
FILE = "com.tabpilot.host.json"


@pytest.mark.parametrize(
    ("machine", "name", "expected"),
    [
        (LINUX, "chrome", f"/home/ann/.config/google-chrome/NativeMessagingHosts/{FILE}"),
        (LINUX, "chromium", f"/home/ann/.config/chromium/NativeMessagingHosts/{FILE}"),
        (LINUX, "edge", f"/home/ann/.config/microsoft-edge/NativeMessagingHosts/{FILE}"),
        (LINUX, "brave", f"/home/ann/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts/{FILE}"),
        (MAC, "chrome", f"/Users/ann/Library/Application Support/Google/Chrome/NativeMessagingHosts/{FILE}"),
        (MAC, "chromium", f"/Users/ann/Library/Application Support/Chromium/NativeMessagingHosts/{FILE}"),
        (MAC, "edge", f"/Users/ann/Library/Application Support/Microsoft Edge/NativeMessagingHosts/{FILE}"),
        (
            MAC,
            "brave",
            f"/Users/ann/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts/{FILE}",
        ),
        # Windows: one manifest in TabPilot's data dir; the registry points each browser at it.
        (WIN, "chrome", rf"C:\Users\ann\AppData\Local\tabpilot\NativeMessagingHosts\{FILE}"),
        (WIN, "chromium", rf"C:\Users\ann\AppData\Local\tabpilot\NativeMessagingHosts\{FILE}"),
        (WIN, "edge", rf"C:\Users\ann\AppData\Local\tabpilot\NativeMessagingHosts\{FILE}"),
        (WIN, "brave", rf"C:\Users\ann\AppData\Local\tabpilot\NativeMessagingHosts\{FILE}"),
    ],
)
def test_manifest_path_per_os_and_browser(machine: Machine, name: str, expected: str) -> None:
    assert str(browsers.manifest_path(machine, name)) == expected


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("chrome", r"Software\Google\Chrome\NativeMessagingHosts\com.tabpilot.host"),
        ("chromium", r"Software\Chromium\NativeMessagingHosts\com.tabpilot.host"),
        ("edge", r"Software\Microsoft\Edge\NativeMessagingHosts\com.tabpilot.host"),
        ("brave", r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.tabpilot.host"),
    ],
)
def test_windows_registry_key(name: str, key: str) -> None:
    assert browsers.registry_key(name) == key


@pytest.mark.parametrize("name", list(browsers.BROWSERS))
@pytest.mark.parametrize("machine", [LINUX, MAC])
def test_user_data_dir_overrides_default_folder(machine: Machine, name: str) -> None:
    got = browsers.manifest_path(machine, name, PurePosixPath("/tmp/prof"))
    assert got == PurePosixPath(f"/tmp/prof/NativeMessagingHosts/{FILE}")


def test_user_data_dir_on_windows_still_uses_the_registry_location() -> None:
    got = browsers.manifest_path(WIN, "chromium", PureWindowsPath(r"D:\prof"))
    assert got == browsers.manifest_path(WIN, "chromium")


def test_xdg_config_home_moves_linux_locations() -> None:
    machine = Machine("linux", PurePosixPath("/home/ann"), {"XDG_CONFIG_HOME": "/cfg"}, None)
    assert browsers.manifest_path(machine, "chromium") == PurePosixPath(
        f"/cfg/chromium/NativeMessagingHosts/{FILE}"
    )


def test_relative_xdg_config_home_is_ignored() -> None:
    machine = Machine("linux", PurePosixPath("/home/ann"), {"XDG_CONFIG_HOME": "cfg"}, None)
    assert str(browsers.manifest_path(machine, "chrome")).startswith("/home/ann/.config/google-chrome/")


def test_windows_user_data_roots() -> None:
    assert browsers.user_data_root(WIN, "edge") == PureWindowsPath(
        r"C:\Users\ann\AppData\Local\Microsoft\Edge\User Data"
    )


def test_unknown_browser_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown browser"):
        browsers.manifest_path(LINUX, "netscape")


def test_detect_installed_by_user_data_dir_or_command() -> None:
    found = browsers.detect_installed(
        LINUX,
        exists=lambda p: str(p) == "/home/ann/.config/BraveSoftware/Brave-Browser",
        which=lambda cmd: "/usr/bin/chromium" if cmd == "chromium" else None,
    )
    assert found == ["chromium", "brave"]


def test_detect_installed_mac_applications_folder() -> None:
    found = browsers.detect_installed(
        MAC, exists=lambda p: str(p) == "/Applications/Microsoft Edge.app", which=lambda cmd: None
    )
    assert found == ["edge"]


def test_choose_defaults_to_installed_else_chromium() -> None:
    assert browsers.choose(None, lambda: ["chrome"]) == ["chrome"]
    assert browsers.choose(None, lambda: []) == ["chromium"]
    assert browsers.choose("all", lambda: []) == ["chrome", "chromium", "edge", "brave"]
    assert browsers.choose("edge", lambda: ["chrome"]) == ["edge"]
