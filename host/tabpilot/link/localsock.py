"""The local socket between bridges and hosts: a private directory, a private socket, same-uid peers.

POSIX: one Unix socket per connected browser, `<runtime dir>/<instance id>.sock`, the directory 0700
and ours, the socket 0600, and the peer's uid checked (SO_PEERCRED on Linux, LOCAL_PEERCRED on
macOS). Windows: a named pipe per browser whose DACL admits only the current user.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from ..wire.errors import ErrorCode, TabPilotError

SUFFIX = ".sock"
_PIPE_PREFIX = "\\\\.\\pipe\\tabpilot-"


@dataclass(frozen=True)
class PeerCred:
    """Who is on the other end of a Unix socket."""

    pid: int | None
    uid: int
    gid: int | None


def socket_path(directory: Path, instance_id: str) -> Path:
    """Socket of one browser instance (its id is 16 hex characters, kept short for sun_path)."""
    if not instance_id or not all(c.isalnum() or c in "-_" for c in instance_id):
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"invalid instance id {instance_id!r}")
    return directory / f"{instance_id}{SUFFIX}"


def ensure_private_dir(directory: Path) -> Path:
    """Create the runtime directory 0700, or check an existing one is ours and private."""
    with contextlib.suppress(FileExistsError):
        directory.mkdir(mode=0o700, parents=True)
    check_private_dir(directory)
    return directory


def check_private_dir(directory: Path) -> None:
    """Refuse a directory that another user owns or that group/others can enter."""
    try:
        st = directory.lstat()
    except FileNotFoundError:
        raise TabPilotError(
            ErrorCode.EXTENSION_NOT_CONNECTED, f"socket directory {directory} does not exist"
        ) from None
    if not stat.S_ISDIR(st.st_mode):
        raise TabPilotError(ErrorCode.INSECURE_SOCKET_DIR, f"{directory} is not a directory")
    problems: list[str] = []
    if st.st_uid != os.geteuid():
        problems.append(f"owned by uid {st.st_uid}, not {os.geteuid()}")
    if st.st_mode & 0o077:
        problems.append(f"mode {stat.S_IMODE(st.st_mode):04o} lets others in")
    if problems:
        raise TabPilotError(
            ErrorCode.INSECURE_SOCKET_DIR,
            f"refusing socket directory {directory}: {'; '.join(problems)}. "
            f"Fix: remove it (rm -rf '{directory}') or run: chmod 700 '{directory}'",
        )


def peer_cred(sock: socket.socket) -> PeerCred:
    """The credentials of the connected peer, from the kernel."""
    if sys.platform.startswith("linux"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return parse_ucred(raw)
    if sys.platform == "darwin":
        local_peercred = 0x001  # <sys/un.h>; SOL_LOCAL is 0
        raw = sock.getsockopt(0, local_peercred, struct.calcsize("IIh16I") + 2)
        return parse_xucred(raw)
    raise TabPilotError(ErrorCode.PEER_REJECTED, f"no peer credential check on {sys.platform}")


def parse_ucred(raw: bytes) -> PeerCred:
    """Linux `struct ucred {pid_t pid; uid_t uid; gid_t gid;}`."""
    pid, uid, gid = struct.unpack("3i", raw[: struct.calcsize("3i")])
    return PeerCred(pid=pid, uid=uid, gid=gid)


def parse_xucred(raw: bytes) -> PeerCred:
    """macOS `struct xucred {u_int cr_version; uid_t cr_uid; short cr_ngroups; gid_t cr_groups[16];}`."""
    version, uid = struct.unpack_from("=II", raw)
    if version != 0:  # XUCRED_VERSION
        raise TabPilotError(ErrorCode.PEER_REJECTED, f"unknown xucred version {version}")
    (ngroups,) = struct.unpack_from("=h", raw, 8)
    gid = struct.unpack_from("=I", raw, 12)[0] if ngroups > 0 else None
    return PeerCred(pid=None, uid=uid, gid=gid)


def check_peer(sock: socket.socket) -> PeerCred:
    """Accept only a peer running as our own uid."""
    cred = peer_cred(sock)
    if cred.uid != os.geteuid():
        raise TabPilotError(
            ErrorCode.PEER_REJECTED,
            f"refused a connection from uid {cred.uid} (pid {cred.pid}): only uid {os.geteuid()} may connect",
        )
    return cred


def is_live(path: Path, timeout_s: float = 0.5) -> bool:
    """Whether a host is listening on `path` (a refused connect means the socket is stale)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(timeout_s)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        except OSError:
            return False
    return True


def remove_stale(directory: Path) -> list[Path]:
    """Delete sockets in `directory` that nobody listens on any more; return what was removed."""
    removed: list[Path] = []
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        if not is_live(path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    return removed


def list_sockets(directory: Path) -> list[Path]:
    """Socket files in the directory, newest first."""
    found = [p for p in directory.glob(f"*{SUFFIX}") if p.is_socket()]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def pipe_name(user: str, instance_id: str) -> str:
    """Windows named pipe of one browser instance, namespaced by user name."""
    safe_user = "".join(c if c.isalnum() else "_" for c in user)
    return f"{_PIPE_PREFIX}{safe_user}-{instance_id}"


def pipe_sddl(user_sid: str) -> str:
    """Security descriptor for the pipe: owned by the user, DACL protected, full access to them only."""
    if not user_sid.startswith("S-1-"):
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"not a SID: {user_sid!r}")
    # O: owner; D:P protected DACL (no inherited entries); A;;GA;;;SID allow generic-all to the user.
    return f"O:{user_sid}D:P(A;;GA;;;{user_sid})"
