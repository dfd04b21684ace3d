"""`./dev dist` builds what a release ships: a wheel that installs into a fresh virtualenv and says its
version, and the extension zip a store takes; and the versions agree wherever they are written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import tabpilot

REPO = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], **kw: object) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return str(done.stdout)


def test_the_version_is_written_once_for_python_and_agrees_with_the_extension() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    # pyproject names no version of its own: the build reads the package's (the wheel test below
    # checks what it wrote), so a release bumps one line for the host and the wheel.
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tabpilot.__version__"}
    # The unpacked extension is loaded from the checkout as it is, so its manifest holds a copy.
    manifest = json.loads((REPO / "extension" / "manifest.json").read_text())
    assert manifest["version"] == tabpilot.__version__


def test_dev_dist_builds_an_installable_wheel_and_the_store_zip(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    listed = _run([str(REPO / "dev"), "dist"], cwd=REPO, env={**os.environ, "DIST": str(out)})
    version = tabpilot.__version__
    wheel = out / f"tabpilot-{version}-py3-none-any.whl"
    store_zip = out / f"tabpilot-extension-{version}.zip"
    assert listed.split() == [str(wheel), str(store_zip)]
    with zipfile.ZipFile(store_zip) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["version"] == version and "key" not in manifest
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, "-r", str(REPO / "requirements.txt")])
    _run([*pip, "--no-deps", str(wheel)])
    said = _run([str(venv / "bin" / "tabpilot"), "--version"], cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert said.strip() == f"tabpilot, version {version}"
    recorded = _run(
        [str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('tabpilot'))"],
        cwd=tmp_path,
    )
    assert recorded.strip() == version  # what pip and pipx list is the package's own version
