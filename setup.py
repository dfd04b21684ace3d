"""The build as pyproject.toml describes it, with one step first: the page agent's one file
(extension/agent.js, made from extension/page/*.js by tabpilot.assets) is written, so the wheel
carries it. The module is loaded from its file: the build has none of TabPilot's dependencies."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPy(build_py):
    def run(self) -> None:
        spec = importlib.util.spec_from_file_location(
            "_tabpilot_assets", ROOT / "host/tabpilot/assets/__init__.py"
        )
        assert spec is not None and spec.loader is not None
        assets = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(assets)
        # Through the package's link (a checkout) or its copy (an sdist), as the wheel will carry it.
        assets.write_agent_bundle(ROOT / "host/tabpilot/assets/extension")
        super().run()


setup(cmdclass={"build_py": BuildPy})
