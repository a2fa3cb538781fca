"""Only regular files are ever opened; symlinks out of the given paths are skipped unless asked.

Real FIFOs, sockets, device symlinks and whole `batchsum run` processes: a FIFO that were opened
would block the run forever, so each run here has a hard timeout.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from batchsum.errors import InputError
from batchsum.walk import SourceRef, discover, read_document

REPO = Path(__file__).resolve().parent.parent
GOOD = "The committee met on Tuesday and agreed on the plan for the new library. " * 12
RUN_TIMEOUT_S = 120  # a hung run (an opened FIFO) fails the test instead of hanging the suite


def _run(*args: str) -> tuple[int, dict, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "batchsum", "run", *args, "--no-index", "--no-metrics", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=RUN_TIMEOUT_S,
    )
    data = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
    return proc.returncode, data, proc.stderr


@pytest.fixture
def sock_path(tmp_path: Path) -> Iterator[Path]:
    # AF_UNIX paths are limited to ~108 bytes; pytest's tmp_path can be longer.
    path = tmp_path / "c" / "chat.sock.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        s.bind(path.name)
    finally:
        os.chdir(cwd)
    try:
        yield path
    finally:
        s.close()


def test_fifo_socket_and_device_are_skipped_by_kind(tmp_path: Path, sock_path: Path) -> None:
    c = sock_path.parent
    (c / "good.md").write_text(GOOD)
    os.mkfifo(c / "notes.md")  # opened for reading, this would block until a writer came
    os.mkfifo(c / "pipe")  # no supported extension: still reported, never opened
    (c / "zero.txt").symlink_to("/dev/zero")  # never ends
    code, data, _ = _run(str(c), "--out", str(tmp_path / "out"), "--follow-symlinks")
    assert code == 1
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "named pipe (FIFO)" in reasons["notes.md"] and "not a regular file" in reasons["notes.md"]
    assert "named pipe (FIFO)" in reasons["pipe"]
    assert "socket" in reasons["chat.sock.md"]
    assert "character device" in reasons["zero.txt"] and "/dev/zero" in reasons["zero.txt"]
    done = [f["relpath"] for f in data["files"] if f["status"] == "done"]
    assert done == ["good.md"]


def test_symlink_to_dev_zero_is_skipped_without_follow_too(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "zero.md").symlink_to("/dev/zero")
    code, data, _ = _run(str(c), "--out", str(tmp_path / "out"))
    assert code == 1
    (problem,) = data["problems"]
    assert problem["path"].endswith("zero.md")
    assert "/dev/zero" in problem["reason"] and "character device" in problem["reason"]


def test_fifo_given_as_a_path_is_skipped(tmp_path: Path) -> None:
    fifo = tmp_path / "live.md"
    os.mkfifo(fifo)
    walk = discover([fifo])
    assert walk.refs == []
    assert "named pipe (FIFO)" in walk.problems[0].reason


def test_read_document_never_opens_a_non_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "later.md"
    os.mkfifo(fifo)  # as if a regular file had been replaced by a FIFO after the walk
    with pytest.raises(InputError, match="named pipe"):
        read_document(SourceRef(fifo, "later.md", tmp_path))


def test_symlinks_inside_the_corpus_work_and_outside_need_follow(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.md").write_text("Private notes about the passwd file. " * 20)
    (outside / "folder").mkdir()
    (outside / "folder" / "deep.md").write_text(GOOD)
    c = tmp_path / "c"
    (c / "real").mkdir(parents=True)
    (c / "real" / "a.md").write_text(GOOD)
    (c / "alias.md").symlink_to(c / "real" / "a.md")  # inside: works
    (c / "linked-dir").symlink_to(c / "real")  # inside: works
    (c / "leak.md").symlink_to(outside / "private.md")  # outside: skipped
    (c / "ext").symlink_to(outside / "folder")  # outside folder: skipped
    (c / "passwd.md").symlink_to("/etc/passwd")

    walk = discover([c])
    assert sorted(r.relpath for r in walk.refs) == ["alias.md", "linked-dir/a.md", "real/a.md"]
    reasons = {Path(p.path).name: p.reason for p in walk.problems}
    assert set(reasons) == {"leak.md", "ext", "passwd.md"}
    assert all("outside the given paths" in r and "--follow-symlinks" in r for r in reasons.values())
    assert str(outside / "private.md") in reasons["leak.md"]

    followed = discover([c], follow_symlinks=True)
    assert {"leak.md", "ext/deep.md", "passwd.md"} <= {r.relpath for r in followed.refs}
    assert followed.problems == []


def test_symlink_policy_end_to_end(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "passwd.md").symlink_to("/etc/passwd")
    code, data, _ = _run(str(c), "--out", str(tmp_path / "out"))
    assert code == 1
    assert [Path(p["path"]).name for p in data["problems"]] == ["passwd.md"]
    assert not (tmp_path / "out" / "passwd.md").exists()


def test_files_skipped_while_walking_count_as_skipped(tmp_path: Path) -> None:
    """A broken symlink, a FIFO or a link outside the paths is a skipped file in the run's counts, its
    metrics and its report, like a binary file skipped on reading (the closing line had said "1 skipped"
    beside four problems)."""
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "bin.txt").write_bytes(b"a\0b")
    (c / "broken.md").symlink_to(tmp_path / "nowhere.md")
    (c / "outside.md").symlink_to("/etc/passwd")
    os.mkfifo(c / "pipe.md")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=RUN_TIMEOUT_S)
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert len(data["problems"]) == 4
    skipped = sorted(f["relpath"] for f in data["files"] if f["status"] == "skipped")
    assert skipped == ["bin.txt", "broken.md", "outside.md", "pipe.md"], data["files"]
    assert data["run"]["files_skipped"] == 4


def test_a_second_path_makes_its_targets_inside(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / "shared.md").write_text(GOOD)
    (a / "link.md").symlink_to(b / "shared.md")
    walk = discover([a, b])
    assert walk.problems == []
    assert sorted(r.relpath for r in walk.refs) == ["a/link.md", "b/shared.md"]


def test_vanished_file_is_reported(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "gone.md").write_text(GOOD)
    (ref,) = discover([c]).refs
    (c / "gone.md").unlink()
    with pytest.raises(InputError, match="vanished"):
        read_document(ref)


def test_file_that_changes_while_read_is_reported() -> None:
    # /proc files are regular files whose stat says 0 bytes while a read returns text: exactly what
    # a file growing between the stat and the read looks like.
    path = Path("/proc/self/status")
    if not path.exists():
        pytest.skip("no /proc")
    with pytest.raises(InputError, match="changed while being read"):
        read_document(SourceRef(path, "status.txt", path.parent))


def test_follow_symlinks_end_to_end(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "shared.md").write_text(GOOD)
    c = tmp_path / "c"
    c.mkdir()
    (c / "linked.md").symlink_to(outside / "shared.md")
    code, data, _ = _run(str(c), "--out", str(tmp_path / "out"), "--follow-symlinks")
    assert code == 0 and data["problems"] == []
    assert [f["relpath"] for f in data["files"] if f["status"] == "done"] == ["linked.md"]
