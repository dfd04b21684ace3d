"""What one install run changed on disk, so a failure half-way can put everything back.

Every file is announced before it is written (new, or an older version to restore) and every
folder that did not exist is noted as it is made, deepest first; `rollback` undoes them in reverse.
The folders are also kept in the install record so `uninstall` removes the ones install made.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path


def remove_empty_dirs(dirs: list[str]) -> list[str]:
    """Remove each folder that is now empty, deepest first; the ones removed."""
    removed: list[str] = []
    for d in sorted(set(dirs), key=lambda p: len(Path(p).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (someone else's files), or already gone
            Path(d).rmdir()
            removed.append(d)
    return removed


@dataclass
class Journal:
    """New files, replaced files (with their old bytes) and new folders of one run."""

    new_files: list[Path] = field(default_factory=list[Path])
    replaced: dict[Path, bytes] = field(default_factory=dict[Path, bytes])
    new_dirs: list[Path] = field(default_factory=list[Path])

    def make_dir(self, folder: Path) -> None:
        """Create `folder` and its missing parents, noting each one created."""
        missing: list[Path] = []
        probe = folder
        while not probe.exists() and probe.parent != probe:
            missing.append(probe)
            probe = probe.parent
        folder.mkdir(parents=True, exist_ok=True)
        self.new_dirs += [d for d in missing if d not in self.new_dirs]

    def will_write(self, path: Path) -> None:
        """Note `path` before it is written (its folder is created here)."""
        if path in self.new_files or path in self.replaced:
            return
        self.make_dir(path.parent)
        if path.exists():
            self.replaced[path] = path.read_bytes()
        else:
            self.new_files.append(path)

    def rollback(self) -> None:
        """Undo the run: delete new files, restore replaced ones, remove the folders it made."""
        for path in reversed(self.new_files):
            path.unlink(missing_ok=True)
        for path, old in self.replaced.items():
            with contextlib.suppress(OSError):
                path.write_bytes(old)
        remove_empty_dirs([str(d) for d in self.new_dirs])
