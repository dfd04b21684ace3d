"""Local socket security: private directory, peer credentials per OS, Windows pipe naming and ACL."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import pytest

from tabpilot.link import localsock
from tabpilot.wire.errors import ErrorCode, TabPilotError


def test_private_dir_is_created_0700(tmp_path: Path) -> None:
    d = localsock.ensure_private_dir(tmp_path / "a" / "run")
    assert d.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701, 0o770, 0o777])
def test_dir_open_to_others_is_refused(tmp_path: Path, mode: int) -> None:
    d = tmp_path / "run"
    d.mkdir()
    d.chmod(mode)
    with pytest.raises(TabPilotError) as err:
        localsock.ensure_private_dir(d)
    assert err.value.code == ErrorCode.INSECURE_SOCKET_DIR
    assert "chmod 700" in err.value.message


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
def test_dir_owned_by_someone_else_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    os.chown(d, 65534, 65534)
    with pytest.raises(TabPilotError) as err:
        localsock.check_private_dir(d)
    assert err.value.code == ErrorCode.INSECURE_SOCKET_DIR and "owned by uid 65534" in err.value.message


def test_symlink_instead_of_dir_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "run"
    link.symlink_to(real)
    with pytest.raises(TabPilotError) as err:
        localsock.check_private_dir(link)
    assert err.value.code == ErrorCode.INSECURE_SOCKET_DIR


def test_linux_peer_cred_of_a_socketpair_is_ours() -> None:
    a, b = socket.socketpair(socket.AF_UNIX)
    with a, b:
        cred = localsock.check_peer(a)
    assert (cred.pid, cred.uid) == (os.getpid(), os.geteuid())


def test_parse_ucred() -> None:
    assert localsock.parse_ucred(struct.pack("3i", 42, 1000, 100)) == localsock.PeerCred(42, 1000, 100)


def test_parse_macos_xucred() -> None:
    raw = struct.pack("=IIh", 0, 501, 2) + b"\0\0" + struct.pack("=16I", 20, 12, *([0] * 14))
    assert localsock.parse_xucred(raw) == localsock.PeerCred(pid=None, uid=501, gid=20)
    with pytest.raises(TabPilotError):
        localsock.parse_xucred(struct.pack("=IIh", 7, 501, 0) + b"\0" * 66)


def test_socket_names_are_checked(tmp_path: Path) -> None:
    assert localsock.socket_path(tmp_path, "0123456789abcdef") == tmp_path / "0123456789abcdef.sock"
    for bad in ["", "../etc", "a/b", "x y"]:
        with pytest.raises(TabPilotError):
            localsock.socket_path(tmp_path, bad)


@pytest.mark.parametrize(
    ("user", "instance", "expected"),
    [
        ("alice", "0123456789abcdef", r"\\.\pipe\tabpilot-alice-0123456789abcdef"),
        ("DOMAIN\\bob smith", "ab", r"\\.\pipe\tabpilot-DOMAIN_bob_smith-ab"),
    ],
)
def test_windows_pipe_name(user: str, instance: str, expected: str) -> None:
    assert localsock.pipe_name(user, instance) == expected


def test_windows_pipe_acl_admits_only_the_user() -> None:
    sid = "S-1-5-21-1004336348-1177238915-682003330-512"
    sddl = localsock.pipe_sddl(sid)
    assert sddl == f"O:{sid}D:P(A;;GA;;;{sid})"
    # Protected DACL, exactly one allow entry, no Everyone (WD), no inherited entries.
    assert sddl.count("(A;") == 1 and "WD" not in sddl and "D:P" in sddl
    with pytest.raises(TabPilotError):
        localsock.pipe_sddl("Everyone")


def test_remove_stale_keeps_live_sockets(tmp_path: Path) -> None:
    live = socket.socket(socket.AF_UNIX)
    live.bind(str(tmp_path / "live.sock"))
    live.listen()
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(tmp_path / "dead.sock"))
    dead.close()
    with live:
        removed = localsock.remove_stale(tmp_path)
        assert removed == [tmp_path / "dead.sock"]
        assert (tmp_path / "live.sock").exists()
