"""A process embedding batchsum keeps no Chroma handle past the library call that opened it, and sees an
index another process rebuilt."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromadb.api.shared_system_client import SharedSystemClient

import batchsum
from batchsum.config import IndexConfig
from batchsum.errors import BatchsumError, IndexError_
from batchsum.index.chroma import open_client
from batchsum.index.clients import LOCK, folder_client, forget_client, released_clients
from batchsum.index.state import chroma_dir
from tests.conftest import REPO, SAMPLE_CORPUS

DAYS = ["2026-10-01.md", "2026-10-02.md", "2026-10-03.md"]


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _open_under(folder: Path) -> list[str]:
    """The files under ``folder`` this process holds open (other tests' threads may open files elsewhere)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            if (target := os.readlink(f"/proc/self/fd/{fd}")).startswith(f"{folder}{os.sep}"):
                held.append(target)
    return held


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in DAYS[:2]:
        shutil.copy(SAMPLE_CORPUS / "journal" / name, src / name)
    return src


def _rebuild_elsewhere(out: Path) -> None:
    """``batchsum index OUT --rebuild`` from a shell: another process replaces the Chroma folder."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "batchsum", "index", str(out), "--rebuild"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr


def test_runs_after_a_rebuild_by_another_process_complete_the_index(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert batchsum.run(str(corpus), out=str(out)).run.status == "ok"
    _rebuild_elsewhere(out)
    shutil.copy(SAMPLE_CORPUS / "journal" / DAYS[2], corpus / DAYS[2])
    again = batchsum.run(str(corpus), out=str(out))
    assert again.run.status == "ok" and not again.warnings
    assert batchsum.repair_index(str(out)).nodes_deleted == 0
    assert batchsum.check_index(str(out)).ok


def test_a_kept_client_notices_its_folder_replaced(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run(str(corpus), out=str(out))
    cfg = IndexConfig(out=out)
    before = open_client(cfg, create=False)  # opened outside a library call (as ``serve`` does): kept
    assert open_client(cfg, create=False) is before
    _rebuild_elsewhere(out)
    after = open_client(cfg, create=False)
    assert after is not before
    col = after.get_collection(cfg.collection, embedding_function=None)
    col.add(ids=["x"], embeddings=[[0.5] * int(col.metadata["embed_dim"])])  # wrote to the rebuilt folder
    forget_client(chroma_dir(cfg))


def test_library_calls_release_their_chroma_handles(corpus: Path, tmp_path: Path) -> None:
    outs = [tmp_path / f"out{i}" for i in range(3)]
    for out in outs:
        batchsum.run(str(corpus), out=str(out))
        assert batchsum.check_index(str(out)).ok
        batchsum.search(str(out), "weather", k=1)
    # Closed, not merely dropped: chromadb stops a folder's System (its SQLite pool, HNSW files) when its
    # last client closes. Its engine then closes those descriptors on threads of its own, a moment later:
    # /proc/self/fd right after the call may still list them (the test had failed so under load).
    for out in outs:
        folder = chroma_dir(IndexConfig(out=out))
        with LOCK:
            assert folder_client(folder) is None
        assert str(folder) not in SharedSystemClient._identifier_to_system


@contextlib.contextmanager
def few_descriptors(spare: int) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (_fds() + spare, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# Every point where a library call can run out (Chroma's files, the vectors, the lexical index, a state
# file): which comes first depends on what the process has loaded and kept, so each is met in turn.
SPARE = range(24)


def _not_called_damage(exc: Exception) -> None:
    assert not isinstance(exc, IndexError_) or not exc.damaged, exc
    assert "--rebuild" not in str(exc) and "corrupt" not in str(exc)


def test_running_out_of_descriptors_is_not_called_corruption(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run(str(corpus), out=str(out))
    for spare in SPARE:
        try:
            with few_descriptors(spare):
                check = batchsum.check_index(str(out))
        except (BatchsumError, OSError) as exc:  # where the descriptors ran out: the index, the lock, a state file
            _not_called_damage(exc)
        else:
            assert check.ok, (spare, check.damaged)


def test_a_client_used_outside_library_calls_stays_open(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run(str(corpus), out=str(out))
    cfg = IndexConfig(out=out)
    opened: list[Any] = []
    with released_clients():  # a library call under way while another thread (serve's) opens the folder
        worker = threading.Thread(target=lambda: opened.append(open_client(cfg, create=False)))
        worker.start()
        worker.join()
        batchsum.search(str(out), "weather", k=1)  # a library call using the same folder meanwhile
    assert opened[0].get_collection(cfg.collection, embedding_function=None).count() > 0
    assert open_client(cfg, create=False) is opened[0]
    forget_client(chroma_dir(cfg))


def test_a_rebuild_out_of_descriptors_keeps_the_index_where_it_is(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run(str(corpus), out=str(out))
    before = [p.name for p in (out / ".batchsum").iterdir()]
    for spare in SPARE:
        try:
            with few_descriptors(spare):
                batchsum.repair_index(str(out), rebuild=True)
        except (BatchsumError, OSError) as exc:  # where the descriptors ran out: the index, the lock, a state file
            _not_called_damage(exc)
        after = {p.name for p in (out / ".batchsum").iterdir()}  # a stopped write may leave a -wal or -shm
        assert set(before) <= after and not [n for n in after if ".broken-" in n]  # nothing moved aside
        batchsum.repair_index(str(out))  # a rebuild stopped halfway is completed by the next repair
        assert batchsum.check_index(str(out)).ok
