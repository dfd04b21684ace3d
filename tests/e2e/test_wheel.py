"""TabPilot as a user gets it. `./dev dist` builds what a release ships: a wheel that installs into a
fresh virtualenv and says its version, and the extension zip a store takes; the versions agree wherever
they are written. That wheel, installed outside the checkout and run with a private HOME: install ->
browser launch -> one MCP call -> doctor -> stop -> uninstall --purge, and then nothing TabPilot wrote
is left. One build and one virtualenv serve the module (each costs tens of seconds of CPU)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

import tabpilot
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
# What Chromium writes under HOME and the runtime dir whatever its --user-data-dir: its NSS certificate
# store, crashpad's settings, GTK's dconf. The browser's files, not TabPilot's.
BROWSER_OWN = (Path(".pki"), Path(".config/chromium/Crash Reports"), Path("dconf"))


def _run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@dataclass
class Release:
    out: Path  # `./dev dist`'s folder
    listed: str  # what `./dev dist` printed
    venv: Path  # a fresh virtualenv with the locked dependencies and the wheel


@pytest.fixture(scope="module")
def release() -> Iterator[Release]:
    """`./dev dist` run into a temporary folder, and its wheel installed with the locked dependencies."""
    base = Path(tempfile.mkdtemp(prefix="tpw", dir="/tmp"))
    out = base / "dist"
    dist = [str(REPO / "dev"), "dist"]
    # The release builds while the locked dependencies install (neither needs the other).
    building = subprocess.Popen(
        dist,
        cwd=REPO,
        env={**os.environ, "DIST": str(out)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        venv = base / "venv"
        # This interpreter's pip installs the wheel into the new venv (the venv's own pip, ensurepip,
        # took about a quarter of the install's time, and nothing here uses it). The locked dependencies
        # come from uv, as `./dev` installed them: from its cache, not the registry again.
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
        python = str(venv / "bin" / "python")
        uv = str(Path(sys.executable).with_name("uv"))
        locked = ["-r", str(REPO / "requirements.txt")]
        _run([uv, "pip", "install", "-q", "--compile-bytecode", "--python", python, *locked])
        pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q"]
        pip.append("--disable-pip-version-check")
        listed, errors = building.communicate(timeout=600)
        assert building.returncode == 0, f"{dist}\n{listed[-3000:]}\n{errors[-3000:]}"
        _run([*pip, "--no-deps", *map(str, out.glob("tabpilot-*.whl"))])
        yield Release(out, listed, venv)
    finally:
        building.kill()
        building.wait()
        shutil.rmtree(base, ignore_errors=True)


def test_the_version_is_written_once_for_python_and_agrees_with_the_extension() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    # pyproject names no version of its own: the build reads the package's (the wheel test below
    # checks what it wrote), so a release bumps one line for the host and the wheel.
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tabpilot.__version__"}
    # The unpacked extension is loaded from the checkout as it is, so its manifest holds a copy.
    manifest = json.loads((REPO / "extension" / "manifest.json").read_text())
    assert manifest["version"] == tabpilot.__version__


def test_dev_dist_builds_an_installable_wheel_and_the_store_zip(release: Release, tmp_path: Path) -> None:
    version = tabpilot.__version__
    wheel = release.out / f"tabpilot-{version}-py3-none-any.whl"
    store_zip = release.out / f"tabpilot-extension-{version}.zip"
    assert release.listed.split() == [str(wheel), str(store_zip)]
    with zipfile.ZipFile(store_zip) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["version"] == version and "key" not in manifest
    venv = release.venv
    said = _run([str(venv / "bin" / "tabpilot"), "--version"], cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert said.strip() == f"tabpilot, version {version}"
    recorded = _run(
        [str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('tabpilot'))"],
        cwd=tmp_path,
    )
    assert recorded.strip() == version  # what pip and pipx list is the package's own version


def test_the_wheel_carries_the_extension_manifest_template_and_whole_demo_site(release: Release) -> None:
    [wheel] = release.out.glob("tabpilot-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert {
        "tabpilot/assets/extension/manifest.json",
        "tabpilot/assets/extension/background.js",
        "tabpilot/assets/extension/agent.js",  # made by the build (setup.py); git does not keep it
        "tabpilot/assets/manifests/com.tabpilot.host.json",
        "tabpilot/demo/site/index.html",
        "tabpilot/demo/site/private/sprint.html",
    } <= names
    assert not any("__pycache__" in n or n.startswith("extension/") for n in names)


def _user_env(home: Path) -> dict[str, str]:
    """A user's environment: their own HOME and runtime dir, nothing pointing into the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABPILOT_", "XDG_", "PYTHON"))}
    return {**env, "HOME": str(home), "XDG_RUNTIME_DIR": str(home.parent / "xdg-run")}


def _files(root: Path) -> list[str]:
    found = [p.relative_to(root) for p in root.rglob("*") if not p.is_dir()]
    return sorted(str(p) for p in found if not any(p.is_relative_to(own) for own in BROWSER_OWN))


async def test_install_launch_call_doctor_uninstall_leaves_no_trace(release: Release, site: str) -> None:
    venv = release.venv
    tabpilot = str(venv / "bin" / "tabpilot")
    base = Path(tempfile.mkdtemp(prefix="tpu", dir="/tmp"))  # short: socket paths are limited
    home = base / "home"
    home.mkdir()
    (base / "xdg-run").mkdir(mode=0o700)
    env = _user_env(home)

    def tp(*args: str) -> str:
        return _run([tabpilot, *args], env=env, cwd=base)

    try:
        ext = Path(tp("extension", "path").strip())
        assert ext.is_relative_to(venv) and (ext / "manifest.json").is_file()
        installed_out = tp("install", "--browser", "chromium")
        assert str(ext) in installed_out
        launched = json.loads(tp("browser", "launch", "--headless", "--pilot", "--detach"))
        assert launched["profile"] == "default"
        params = StdioServerParameters(command=tabpilot, args=["mcp"], env=env, cwd=str(base))
        async with Client(params, read_timeout_seconds=60) as client:
            page = await call(client, "interact", action="navigate", url=f"{site}/index.html")
            assert page["title"] == "TabPilot fixture"
        doctor = tp("doctor")
        assert "All checks passed." in doctor
        stopped = json.loads(tp("browser", "stop"))
        assert stopped["stopped"] is True
        tp("uninstall", "--purge")
        assert _files(home) == []
        assert _files(base / "xdg-run") == []
        assert not (base / "xdg-run" / "tabpilot").exists()
    finally:
        subprocess.run([tabpilot, "browser", "stop"], env=env, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
