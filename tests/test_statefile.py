"""State files are opened without following links and only when they are regular files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from batchsum import statefile
from batchsum.model import SummaryOutput
from batchsum.state import StateStore


def test_links_fifos_and_folders_are_refused_and_regular_files_read(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"secret")
    (tmp_path / "link").symlink_to(target)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    with pytest.raises(statefile.UnsafeStateFile, match="symbolic link"):
        statefile.read_bytes(tmp_path / "link")
    with pytest.raises(statefile.UnsafeStateFile, match="FIFO"):
        statefile.read_bytes(tmp_path / "fifo")
    with pytest.raises(statefile.UnsafeStateFile, match="FIFO"):  # for writing: no reader, still no hang
        statefile.open_regular(tmp_path / "fifo", os.O_WRONLY)
    with pytest.raises(IsADirectoryError):
        statefile.open_regular(tmp_path / "dir", os.O_RDWR)
    assert statefile.read_bytes(target) == b"secret"
    assert statefile.read_bytes(target, 3) == b"sec"


def test_a_planted_link_or_fifo_in_the_state_store_reads_as_missing(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"text": "not ours", "backend": "x"}')
    store = StateStore(tmp_path / "state")
    store.put_node("ab" + "0" * 62, SummaryOutput(text="kept", backend="extractive"))
    assert store.get_node("ab" + "0" * 62) is not None
    link = tmp_path / "state" / "nodes" / "cd" / ("cd" + "0" * 62 + ".json")
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    assert store.get_node("cd" + "0" * 62) is None
    os.mkfifo(store.snapshot_path)
    assert store.load_manifest() == {}  # the FIFO is not waited on
