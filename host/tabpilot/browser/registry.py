"""Where each named dedicated profile lives, so `stop` and `list` find one launched with --user-data-dir.

Profiles in the default place (`<data dir>/profiles/NAME`) are found by listing that folder; one
launched elsewhere is remembered by name in `<data dir>/profile-locations.json` (until it is
launched again elsewhere, or its folder is gone).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, cast

from .. import paths
from . import profile

INDEX = "profile-locations.json"


def _index_path() -> Path:
    return paths.data_dir() / INDEX


def _load() -> dict[str, str]:
    try:
        data: Any = json.loads(_index_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in cast(dict[Any, Any], data).items()}


def _save(index: dict[str, str]) -> None:
    path = _index_path()
    if not index:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{INDEX}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(index, f, indent=2)
    os.replace(tmp, path)


def remember(name: str, folder: Path) -> None:
    """Note where `name` runs, when that is not its default folder."""
    index = _load()
    if folder == profile.profile_dir(name):
        if index.pop(name, None) is not None:
            _save(index)
        return
    index[name] = str(folder)
    _save(index)


def locate(name: str) -> Path:
    """The folder of profile `name`: the one it was last launched with, else the default."""
    remembered = _load().get(name)
    if remembered and Path(remembered).is_dir():
        return Path(remembered)
    return profile.profile_dir(name)


def known() -> dict[str, Path]:
    """Every profile by name: the default folders, then the remembered ones (which win)."""
    found: dict[str, Path] = {}
    root = paths.data_dir() / "profiles"
    if root.is_dir():
        for child in sorted(root.iterdir()):
            if child.is_dir():
                found[child.name] = child
    for name, folder in _load().items():
        if Path(folder).is_dir():
            found[name] = Path(folder)
    return found
