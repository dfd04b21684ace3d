"""Files TabPilot ships next to its code: the extension, the host manifest template.

`extension` and `manifests` here are links to the repository's top-level folders, so a checkout
edits one copy; building the wheel follows the links and packs real files. Either way they are
found through importlib.resources, never from where the source tree happens to be.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _folder(package: str, name: str) -> Path:
    found = resources.files(package) / name
    # Chrome needs a real folder (Load unpacked, --load-extension): a zipped install cannot serve.
    if not isinstance(found, Path) or not found.is_dir():
        raise FileNotFoundError(f"TabPilot's {name} folder is missing from the installed package ({found})")
    return found.resolve()


def extension_dir() -> Path:
    """The unpacked extension folder shipped with this package."""
    return _folder(__name__, "extension")


def manifests_dir() -> Path:
    """The folder of native host manifest templates shipped with this package."""
    return _folder(__name__, "manifests")


def demo_site_dir() -> Path:
    """The demo site's pages (public and `private/`) shipped with this package."""
    return _folder("tabpilot.demo", "site")
