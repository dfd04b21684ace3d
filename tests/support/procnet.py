"""What /proc says of processes: which hold internet sockets (/proc/<pid>/fd, /proc/net/{tcp,tcp6,udp,udp6}),
which run a command line, and which are a browser's extension renderers."""

from __future__ import annotations

import os
from pathlib import Path

_TABLES = ("tcp", "tcp6", "udp", "udp6")


def inet_socket_inodes() -> dict[int, str]:
    """inode -> "proto local_address" for every TCP/UDP socket on the machine."""
    found: dict[int, str] = {}
    for table in _TABLES:
        lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        for line in lines:
            cols = line.split()
            found[int(cols[9])] = f"{table} {cols[1]}"
    return found


def socket_inodes(pid: int) -> set[int]:
    """Inodes of the sockets a process holds open."""
    inodes: set[int] = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes  # the process exited meanwhile: it holds nothing
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def inet_sockets_of(pid: int) -> list[str]:
    """The TCP/UDP sockets process `pid` holds (empty for a process with no port)."""
    table = inet_socket_inodes()
    return [table[i] for i in socket_inodes(pid) if i in table]


def pids_with_cmdline(*needles: str) -> list[int]:
    """Processes whose command line contains every needle."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if all(n in cmdline for n in needles):
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def extension_processes(browser_pid: int) -> list[int]:
    """Pids of the extension renderer processes (`--extension-process`) below the browser `browser_pid`."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append((int(entry.name), cmdline))
    found: list[int] = []
    stack = [browser_pid]
    while stack:
        for pid, cmdline in children.get(stack.pop(), []):
            stack.append(pid)
            # Chromium rewrites its processes' titles: one space-separated line, not NUL-separated.
            if b" --extension-process" in cmdline:
                found.append(pid)
    return found
