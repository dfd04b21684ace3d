"""`tabpilot extension path|pack`: the extension shipped in this package, for Load unpacked or a store."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import click

from . import paths

# Files the browser has no use for; the store also rejects a zip carrying a `key` (ids are its own).
_SKIP_NAMES = {"README.md", "launch-config.json", ".DS_Store"}


def _files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.name not in _SKIP_NAMES and not any(part.startswith(".") for part in p.parts)
    )


def pack(out: Path, root: Path | None = None) -> int:
    """Write the extension as a store-ready zip (manifest at the top, no pinned key); the file count."""
    root = root or paths.extension_dir()
    files = _files(root)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("key", None)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in files:
            name = path.relative_to(root).as_posix()
            if name == "manifest.json":
                zf.writestr(name, json.dumps(manifest, indent=2) + "\n")
            else:
                zf.write(path, name)
    tmp.replace(out)
    return len(files)


@click.group("extension")
def group() -> None:
    """The TabPilot extension shipped with this package."""


@group.command("path")
def path_command() -> None:
    """Print the extension folder (choose it in chrome://extensions, Load unpacked)."""
    click.echo(str(paths.extension_dir()))


@group.command("pack")
@click.argument("out", type=click.Path(dir_okay=False, writable=True, path_type=Path))
def pack_command(out: Path) -> None:
    """Write the extension as a zip for the Chrome Web Store (or any store) to OUT."""
    if out.suffix.lower() != ".zip":
        raise click.BadParameter("the file name must end in .zip", param_hint="OUT")
    count = pack(out.expanduser().resolve())
    click.echo(f"{out} ({count} files)")
