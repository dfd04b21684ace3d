"""Render the extension's toolbar icons from their SVG designs (extension/icons/*.svg) with headless
Chromium, the one renderer this project already needs: `python -m tests.support.icons`. The PNGs are
committed (an extension cannot render SVG icons at install time); tests/unit/extension/test_icons.py
checks them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tabpilot import paths

SIZES = (16, 32, 48, 128)
DESIGNS = ("icon", "icon-off")  # the pilot on, and off (greyed)
BINARY = "/usr/lib/chromium/chromium"


def render(svg: Path, size: int, out: Path) -> None:
    """One PNG of `size` pixels square, transparent around the design."""
    # Headless without --user-data-dir runs on a throw-away profile (a fresh one given here paints
    # nothing at 128 px in Chromium 156).
    subprocess.run(
        [
            BINARY,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--default-background-color=00000000",
            f"--window-size={size},{size}",
            f"--screenshot={out}",
            svg.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )


def main() -> None:
    """Write extension/icons/<design>-<size>.png for every design and size."""
    folder = paths.extension_dir() / "icons"
    for design in DESIGNS:
        for size in SIZES:
            render(folder / f"{design}.svg", size, folder / f"{design}-{size}.png")


if __name__ == "__main__":
    main()
