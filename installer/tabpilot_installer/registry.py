"""Windows registry access behind a tiny interface, so the install logic is testable anywhere."""

from __future__ import annotations

import contextlib
import sys
from typing import Protocol


class Registry(Protocol):
    """HKEY_CURRENT_USER default values, the only registry shape native messaging uses."""

    def get_default(self, key: str) -> str | None:
        """The key's default value, or None when the key does not exist."""
        ...

    def set_default(self, key: str, value: str) -> None:
        """Create the key if needed and set its default value."""
        ...

    def delete_key(self, key: str) -> None:
        """Delete the key (it has no subkeys); no error if it is gone."""
        ...


class WinRegistry:
    """The real HKCU registry through `winreg` (Windows only)."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise OSError("the Windows registry exists only on Windows")

    def get_default(self, key: str) -> str | None:
        """The key's default value, or None when the key does not exist."""
        if sys.platform != "win32":
            return None
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, key) as handle:
                value, _kind = winreg.QueryValueEx(handle, "")
        except FileNotFoundError:
            return None
        return str(value)

    def set_default(self, key: str, value: str) -> None:
        """Create the key if needed and set its default value."""
        if sys.platform != "win32":
            return
        import winreg

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, key) as handle:
            winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, value)

    def delete_key(self, key: str) -> None:
        """Delete the key (it has no subkeys); no error if it is gone."""
        if sys.platform != "win32":
            return
        import winreg

        with contextlib.suppress(FileNotFoundError):
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)


class MemoryRegistry:
    """A dict standing in for HKCU (tests, and dry runs on other platforms)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get_default(self, key: str) -> str | None:
        """The key's default value, or None when the key does not exist."""
        return self.values.get(key.lower())

    def set_default(self, key: str, value: str) -> None:
        """Create the key if needed and set its default value."""
        self.values[key.lower()] = value

    def delete_key(self, key: str) -> None:
        """Delete the key; no error if it is gone."""
        self.values.pop(key.lower(), None)
