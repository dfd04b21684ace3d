"""TabPilot as a user gets it: the wheel built from this checkout, installed into a fresh virtualenv
outside it, run with a private HOME. install -> browser launch -> one MCP call -> doctor -> stop ->
uninstall --purge, and then nothing TabPilot wrote is left."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

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


@pytest.fixture(scope="module")
def installed() -> Iterator[tuple[Path, Path]]:
    """(venv, wheel): the wheel built from the checkout and installed with the locked dependencies."""
    base = Path(tempfile.mkdtemp(prefix="tpw", dir="/tmp"))
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(base / "dist"), str(REPO)]
    # The wheel builds while the locked dependencies install (neither needs the other).
    building = subprocess.Popen(build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        venv = base / "venv"
        # This interpreter's pip installs into the new venv: the venv's own pip (ensurepip) took about
        # a quarter of this fixture's time, and nothing here uses it.
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
        pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q"]
        pip.append("--disable-pip-version-check")
        _run([*pip, "-r", str(REPO / "requirements.txt")])
        built, _ = building.communicate(timeout=600)
        assert building.returncode == 0, f"{build}\n{built[-3000:]}"
        [wheel] = (base / "dist").glob("tabpilot-*.whl")
        _run([*pip, "--no-deps", str(wheel)])
        yield venv, wheel
    finally:
        building.kill()
        building.wait()
        shutil.rmtree(base, ignore_errors=True)


def test_the_wheel_carries_the_extension_manifest_template_and_whole_demo_site(
    installed: tuple[Path, Path],
) -> None:
    with zipfile.ZipFile(installed[1]) as zf:
        names = set(zf.namelist())
    assert {
        "tabpilot/assets/extension/manifest.json",
        "tabpilot/assets/extension/background.js",
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


async def test_install_launch_call_doctor_uninstall_leaves_no_trace(
    installed: tuple[Path, Path], site: str
) -> None:
    venv, _ = installed
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
