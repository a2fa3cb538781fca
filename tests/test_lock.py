"""The output-folder lock, exercised with real child processes."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from batchsum.errors import LockedError, StorageError
from batchsum.lock import RunLock, lock_path, read_lock_info

REPO = Path(__file__).resolve().parent.parent

HOLDER = """
import sys, time
from pathlib import Path
from batchsum.lock import RunLock
lock = RunLock(Path(sys.argv[1])).acquire()
print("locked", flush=True)
sys.stdin.readline()  # hold until the parent says so (or kills us)
lock.release()
print("released", flush=True)
"""


def _spawn_holder(out: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out), "--api-key", "sk-secretsecret123"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    out = tmp_path / "out"
    proc = _spawn_holder(out)
    try:
        yield out, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_second_run_fails_at_once_naming_the_holder(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    out, proc = holder
    with pytest.raises(LockedError) as err:
        RunLock(out).acquire()
    msg = str(err.value)
    assert f"output folder {out} is locked by pid {proc.pid}" in msg
    assert "started " in msg and "--wait" in msg
    info = read_lock_info(lock_path(out))
    assert info is not None and info["pid"] == proc.pid and info["host"] == socket.gethostname()
    # The holder's command line is recorded without its secret.
    assert "sk-secretsecret123" not in json.dumps(info)
    assert info["argv"][-2:] == ["--api-key", "***"]


def test_clean_release_lets_the_next_run_in_without_stale_warning(
    holder: tuple[Path, subprocess.Popen[str]], caplog: pytest.LogCaptureFixture
) -> None:
    out, proc = holder
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "released"
    proc.wait()
    with caplog.at_level(logging.WARNING, logger="batchsum.lock"), RunLock(out) as lock:
        assert lock.held and lock.stale is None
    assert "stale" not in caplog.text


def test_sigkilled_holder_lock_is_taken_over(
    holder: tuple[Path, subprocess.Popen[str]], caplog: pytest.LogCaptureFixture
) -> None:
    out, proc = holder
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with caplog.at_level(logging.WARNING, logger="batchsum.lock"), RunLock(out) as lock:
        assert lock.stale is not None and lock.stale["pid"] == proc.pid
        info = read_lock_info(lock_path(out))
        assert info is not None and info["pid"] == os.getpid()
    assert f"stale lock in {out}: pid {proc.pid}" in caplog.text
    assert "is no longer running" in caplog.text
    # Released cleanly: empty file, so the next run reports nothing stale.
    assert read_lock_info(lock_path(out)) is None


def test_lock_file_naming_a_dead_pid_is_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "out"
    path = lock_path(out)
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started_at": "2026-10-01T02:00:00Z"}),
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="batchsum.lock"), RunLock(out) as lock:
        assert lock.stale is not None and lock.stale["pid"] == dead.pid
    assert f"pid {dead.pid} (started 2026-10-01T02:00:00Z) is no longer running" in caplog.text


def test_wait_times_out_with_a_clear_message(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    out, proc = holder
    with pytest.raises(LockedError, match=rf"still locked by pid {proc.pid} .* after waiting 0.2 s"):
        RunLock(out, wait=True, poll=0.05, timeout=0.2).acquire()


class _KillWhenWaiting(logging.Handler):
    """Kills the holder the moment the waiter announces it is waiting (no sleeps, no races)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        super().__init__(logging.INFO)
        self.proc = proc
        self.fired = False

    def emit(self, record: logging.LogRecord) -> None:
        if "waiting" in record.getMessage() and not self.fired:
            self.fired = True
            self.proc.kill()
            self.proc.wait()


def test_wait_acquires_once_the_holder_dies(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    out, proc = holder
    logger = logging.getLogger("batchsum.lock")
    handler = _KillWhenWaiting(proc)
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with RunLock(out, wait=True, poll=0.02, timeout=60) as lock:
            assert lock.held
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert handler.fired, "the waiter never had to wait"


def test_two_locks_in_one_process_conflict_and_release_is_idempotent(tmp_path: Path) -> None:
    first = RunLock(tmp_path / "o").acquire()
    with pytest.raises(LockedError):
        RunLock(tmp_path / "o").acquire()
    first.release()
    first.release()
    with RunLock(tmp_path / "o") as again:
        assert again.held
    assert not again.held


# ---- damaged lock files and OS errors ----------------------------------------------------------
def test_binary_garbage_in_the_lock_file_is_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "out"
    path = lock_path(out)
    path.parent.mkdir(parents=True)
    path.write_bytes(os.urandom(512) + b"\xff\xfe\x00garbage")
    with caplog.at_level(logging.WARNING), RunLock(out) as lock:
        assert lock.held and lock.stale is None
        assert read_lock_info(path)["pid"] == os.getpid()
    assert "held unreadable data" in caplog.text and str(path) in caplog.text


def test_a_lock_folder_is_moved_aside_and_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "out"
    path = lock_path(out)
    path.mkdir(parents=True)
    (path / "something.txt").write_text("kept")
    with caplog.at_level(logging.WARNING), RunLock(out) as lock:
        assert lock.held and path.is_file()
    (aside,) = path.parent.glob("lock.folder-*")
    assert (aside / "something.txt").read_text() == "kept"
    assert "was a folder" in caplog.text


def test_garbage_lock_file_end_to_end(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "a.md").write_text("The committee met on Tuesday and agreed on the plan. " * 10)
    out = tmp_path / "out"
    lock_path(out).parent.mkdir(parents=True)
    lock_path(out).write_bytes(b"\x00\x01\x02\xff" * 64)
    proc = subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(c), "--out", str(out), "--no-index", "--no-metrics"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "held unreadable data" in proc.stderr and "Traceback" not in proc.stderr


def test_a_file_where_the_state_folder_belongs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".batchsum").write_text("not a folder")
    with pytest.raises(StorageError, match=r"\.batchsum: a file is where a folder belongs"):
        RunLock(out).acquire()


UNSHARE = shutil.which("unshare")


def _in_private_mount(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a shell script as root of a new user + mount namespace: its mounts vanish with it."""
    if UNSHARE is None:
        pytest.skip("unshare not available")
    probe = subprocess.run([UNSHARE, "-rm", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip("user namespaces not available here")
    env = {**os.environ, "PYTHONPATH": str(REPO), "PY": sys.executable, "T": str(tmp_path)}
    return subprocess.run(
        [UNSHARE, "-rm", "sh", "-euc", script], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def test_read_only_output_is_a_one_line_error_exit_2(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "a.md").write_text("The committee met on Tuesday and agreed on the plan. " * 10)
    (tmp_path / "mnt").mkdir()
    proc = _in_private_mount(
        """
        mount -t tmpfs -o size=1m tmpfs "$T/mnt"
        mkdir -p "$T/mnt/out/.batchsum"
        mount -o remount,ro "$T/mnt"
        set +e
        "$PY" -m batchsum run "$T/c" --out "$T/mnt/out" --no-index --no-metrics
        echo "exit=$?"
        """,
        tmp_path,
    )
    assert "exit=2" in proc.stdout, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines == [
        f"Error: {tmp_path}/mnt/out/.batchsum/lock: read-only file system; give a writable --out "
        "(or remount it read-write)"
    ]


def test_full_disk_while_taking_the_lock_names_the_path(tmp_path: Path) -> None:
    (tmp_path / "mnt").mkdir()
    proc = _in_private_mount(
        """
        mount -t tmpfs -o size=64k tmpfs "$T/mnt"
        mkdir -p "$T/mnt/out/.batchsum"
        dd if=/dev/zero of="$T/mnt/fill" bs=4k 2>/dev/null || true
        "$PY" - <<'PY'
import os, sys
from pathlib import Path
from batchsum.errors import StorageError
from batchsum.lock import RunLock
try:
    RunLock(Path(os.environ["T"]) / "mnt" / "out").acquire()
except StorageError as exc:
    print("ERR", exc)
else:
    print("acquired")
PY
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ERR " in proc.stdout and "no space left on device" in proc.stdout and "lock" in proc.stdout, proc.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to another user")
def test_permission_denied_names_the_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lock_path(out).parent.mkdir(parents=True)
    tmp_path.chmod(0o755)
    code = f"""
import os
from pathlib import Path
from batchsum.errors import StorageError
from batchsum.lock import RunLock
os.setgid(65534); os.setuid(65534)  # imports first: the interpreter's files may not be readable by nobody
try:
    RunLock(Path({str(out)!r})).acquire()
except StorageError as exc:
    print("ERR", exc)
"""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert "ERR " in proc.stdout and "permission denied" in proc.stdout, (proc.stdout, proc.stderr)


def _run_cli(corpus: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", *extra],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,  # a guard against a hang, not a speed target
    )


def test_a_symlinked_lock_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    c = tmp_path / "c"
    c.mkdir()
    (c / "a.md").write_text("The committee met on Tuesday and agreed on the plan. " * 10)
    out = tmp_path / "out"
    lock_path(out).parent.mkdir(parents=True)
    lock_path(out).symlink_to(victim)
    with pytest.raises(StorageError, match="symbolic link; refused"):
        RunLock(out).acquire()
    proc = _run_cli(c, out)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{lock_path(out)}: is a symbolic link; refused" in proc.stderr
    assert victim.read_text() == "precious\n"
    assert read_lock_info(lock_path(out)) is None  # reading holder details does not follow it either


def test_a_fifo_lock_is_refused_without_hanging(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lock_path(out).parent.mkdir(parents=True)
    os.mkfifo(lock_path(out))
    with pytest.raises(StorageError, match="is a FIFO"):
        RunLock(out).acquire()
    assert read_lock_info(lock_path(out)) is None


def test_serve_key_and_api_key_are_masked_in_the_lock_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out), "--serve-key", "srv-secret-1", "--api-key=sk-secretsecret123"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        raw = lock_path(out).read_text()
        assert "srv-secret-1" not in raw and "sk-secretsecret123" not in raw
        assert read_lock_info(lock_path(out))["argv"][-3:] == ["--serve-key", "***", "--api-key=***"]  # type: ignore[index]
    finally:
        proc.kill()
        proc.wait()


def test_plan_says_another_run_is_working_on_the_folder(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    """`batchsum plan` takes no lock, so it names the run holding the folder (its state may change under the
    plan); once that run has ended, cleanly or not, it names nobody."""
    from click.testing import CliRunner

    from batchsum.cli import main

    out, proc = holder
    corpus = out.parent / "corpus"
    corpus.mkdir()
    (corpus / "note.md").write_text("The harbour survey found three damaged moorings near the pier. " * 20)
    args = ["plan", str(corpus), "--out", str(out)]
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    assert f"pid {proc.pid}" in json.loads(res.stdout)["held_by"]
    text = CliRunner().invoke(main, args).stdout
    assert f"another run (pid {proc.pid}" in text and "exits with code 3" in text
    proc.kill()  # a crash: its record stays, naming a process that is gone
    proc.wait()
    assert read_lock_info(lock_path(out)) is not None
    assert json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)["held_by"] is None
