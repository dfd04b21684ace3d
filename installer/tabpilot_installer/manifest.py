"""The native host manifest: render it from the template in `manifests/`, write it, read it back."""

from __future__ import annotations

import json
import os
import string
import tempfile
from pathlib import Path, PurePath
from typing import Any, cast

from tabpilot import assets, paths

TEMPLATE_NAME = f"{paths.HOST_NAME}.json"


def template_path() -> Path:
    """The manifest template shipped in the package (the repository's `manifests/` folder)."""
    return assets.manifests_dir() / TEMPLATE_NAME


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return string.Template(value).substitute(mapping)
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in cast(list[Any], value)]
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in cast(dict[str, Any], value).items()}
    return value


def render(launcher: PurePath, template: str | None = None) -> dict[str, Any]:
    """The manifest naming our host, pointing at `launcher` (absolute) and allowing our extension."""
    if not launcher.is_absolute():
        # Chrome refuses a relative path on Linux and macOS ("native messaging host not found").
        raise ValueError(f"launcher path must be absolute: {launcher}")
    text = template if template is not None else template_path().read_text(encoding="utf-8")
    mapping = {"name": paths.HOST_NAME, "path": str(launcher), "origin": paths.EXTENSION_ORIGIN}
    rendered = _substitute(json.loads(text), mapping)
    assert isinstance(rendered, dict)
    return cast(dict[str, Any], rendered)


def dumps(manifest: dict[str, Any]) -> str:
    """The manifest as file text."""
    return json.dumps(manifest, indent=2) + "\n"


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a file so a reader never sees half of it (temp file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(path: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest file."""
    atomic_write(path, dumps(manifest))


def is_ours(path: Path) -> bool:
    """True when the file is a manifest for our host (so uninstall never deletes someone else's)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and cast(dict[str, Any], data).get("name") == paths.HOST_NAME
