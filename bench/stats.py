"""Percentiles, process memory and the facts about the machine a run is recorded with."""

from __future__ import annotations

import datetime
import os
import platform
import re
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Timings:
    """Summary of one series of latencies, in milliseconds."""

    n: int
    p50: float
    p90: float
    p99: float
    mean: float
    max: float

    @classmethod
    def of(cls, seconds: list[float]) -> Timings:
        """Summarise wall-clock durations given in seconds."""
        ms = sorted(s * 1000 for s in seconds)
        return cls(
            n=len(ms),
            p50=statistics.median(ms),
            p90=percentile(ms, 90),
            p99=percentile(ms, 99),
            mean=statistics.fmean(ms),
            max=ms[-1],
        )

    def to_dict(self) -> dict[str, float | int]:
        """Rounded to microseconds for the JSON output."""
        return {k: (v if isinstance(v, int) else round(v, 3)) for k, v in self.__dict__.items()}


def percentile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default) over sorted values."""
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process (VmRSS), in MiB; None if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else None


def _stat_fields(pid: int | str) -> list[str] | None:
    """/proc/<pid>/stat from field 3 on (after the command name, which may hold spaces)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children_of(parent: int, *words: str) -> list[int]:
    """Direct child processes of `parent` whose command line holds every word."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        fields = _stat_fields(entry.name) if entry.name.isdigit() else None
        if fields is None or int(fields[1]) != parent:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if all(w in cmdline for w in words):
            found.append(int(entry.name))
    return found


def descendants(root: int) -> list[int]:
    """Every process below `root` in the process tree (a browser's renderers, utilities, host)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        fields = _stat_fields(entry.name) if entry.name.isdigit() else None
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def pids_mentioning(marker: str) -> list[int]:
    """Processes (other than this one) whose command line contains `marker`."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes have used so far (the ones still running)."""
    ticks = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gb() -> float | None:
    try:
        found = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE)
    except OSError:
        return None
    return round(int(found.group(1)) / 1024 / 1024, 1) if found else None


def _command_output(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_facts(chromium: str) -> dict[str, object]:
    """CPU, cores, RAM, OS, browser and runtime versions, the date and the commit measured."""
    repo = Path(__file__).resolve().parents[1]
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "os": f"{platform.system()} {platform.release()}",
        "load_avg_start": [round(x, 2) for x in os.getloadavg()],
        "chromium": (_command_output(chromium, "--version").splitlines() or [""])[-1],
        "python": platform.python_version(),
        "node": _command_output("node", "--version"),
        "commit": _command_output("git", "-C", str(repo), "rev-parse", "--short", "HEAD"),
        "uncommitted_changes": bool(_command_output("git", "-C", str(repo), "status", "--porcelain")),
    }
