"""The extension's icons: every size the manifest names is a PNG of that size (rendered from
extension/icons/*.svg by `python -m tests.support.icons`), in the on and the off design."""

from __future__ import annotations

import json
import struct

from tabpilot import paths
from tests.support.icons import DESIGNS, SIZES

EXT = paths.extension_dir()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_manifest_icons_are_pngs_of_their_sizes() -> None:
    manifest = json.loads((EXT / "manifest.json").read_text())
    assert set(manifest["icons"]) == set(manifest["action"]["default_icon"]) == {str(s) for s in SIZES}
    for size, path in [*manifest["icons"].items(), *manifest["action"]["default_icon"].items()]:
        assert _png_size((EXT / path).read_bytes()) == (int(size), int(size)), path


def test_every_design_is_rendered_at_every_size_and_on_differs_from_off() -> None:
    for size in SIZES:
        rendered = [(EXT / "icons" / f"{d}-{size}.png").read_bytes() for d in DESIGNS]
        assert all(_png_size(r) == (size, size) for r in rendered)
        assert len(set(rendered)) == len(DESIGNS)
        # A render taken before the first paint is a tiny all-transparent file.
        assert all(len(r) > 500 for r in rendered)
