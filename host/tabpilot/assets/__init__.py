"""Files TabPilot ships next to its code: the extension, the host manifest template.

`extension` and `manifests` here are links to the repository's top-level folders, so a checkout
edits one copy; building the wheel follows the links and packs real files. Either way they are
found through importlib.resources, never from where the source tree happens to be.

The page agent is written as many files (extension/page/*.js) and injected as one: Chrome reads each
file of an injection on its own, and the agent's 35 took a fresh document 5–13 ms more than the same
text in one file (medians over 10 navigations each, on 2 cores). `agent.js` is that one file, the
files in the order worker/lib/page.js lists them; it is made from them (never edited, not kept in
git) whenever the extension folder is asked for (the native host asks at its start) and by the wheel's
build (setup.py). This module imports nothing of TabPilot's, so that the build can run it alone.
"""

from __future__ import annotations

import os
import re
import tempfile
from importlib import resources
from pathlib import Path

AGENT_BUNDLE = "agent.js"
_LISTED = re.compile(r"AGENT_FILES = \[([^\]]*)\]")


def _folder(package: str, name: str) -> Path:
    found = resources.files(package) / name
    # Chrome needs a real folder (Load unpacked, --load-extension): a zipped install cannot serve.
    if not isinstance(found, Path) or not found.is_dir():
        raise FileNotFoundError(f"TabPilot's {name} folder is missing from the installed package ({found})")
    return found.resolve()


def extension_dir() -> Path:
    """The unpacked extension folder shipped with this package, its page agent's one file up to date."""
    folder = _folder(__name__, "extension")
    write_agent_bundle(folder)
    return folder


def agent_files(extension: Path) -> list[str]:
    """The page agent's files, in the order they run (the list in the worker's lib/page.js)."""
    listed = _LISTED.search((extension / "worker" / "lib" / "page.js").read_text(encoding="utf-8"))
    if listed is None:
        raise ValueError(f"{extension}/worker/lib/page.js lists no AGENT_FILES")
    return re.findall(r"'([^']+)'", listed.group(1))


def agent_bundle(extension: Path) -> str:
    """The text of agent.js: each file of the agent, in order, after a line that names it."""
    parts = [
        "// Made from page/*.js by tabpilot.assets (the files in worker/lib/page.js's order). Do not edit.\n"
    ]
    for name in agent_files(extension):
        # A file's last statement ends before the next file's first (an IIFE after an IIFE would call it).
        parts.append(f"// ---- {name}\n{(extension / name).read_text(encoding='utf-8').rstrip()}\n;\n")
    return "".join(parts)


def write_agent_bundle(extension: Path) -> None:
    """Write `extension`/agent.js when it is missing or differs from the files it is made from. The
    file is replaced whole (written aside, then renamed), so a browser injecting it meanwhile, or
    another process writing it too, never reads half of it."""
    text = agent_bundle(extension)
    target = extension / AGENT_BUNDLE
    try:
        if target.read_text(encoding="utf-8") == text:
            return
    except FileNotFoundError:
        pass
    # Not a .js name meanwhile: nothing that lists the extension's scripts meets it half-written.
    fd, tmp = tempfile.mkstemp(dir=extension, prefix=".agent-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def manifests_dir() -> Path:
    """The folder of native host manifest templates shipped with this package."""
    return _folder(__name__, "manifests")


def demo_site_dir() -> Path:
    """The demo site's pages (public and `private/`) shipped with this package."""
    return _folder("tabpilot.demo", "site")
