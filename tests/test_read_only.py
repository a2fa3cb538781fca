"""An output on read-only storage: search works from a copy of the index, writers say read-only."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.readonly import CannotMakeReadOnly, read_only_view

JOURNAL = SAMPLE_CORPUS / "journal"


@contextmanager
def read_only(folder: Path, view: Path) -> Iterator[Path]:
    try:
        with read_only_view(folder, view) as ro:
            yield ro
    except CannotMakeReadOnly as exc:
        pytest.skip(str(exc))


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def test_search_reads_a_read_only_output_and_writers_say_it_is_read_only(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    writable = CliRunner().invoke(main, ["search", "harbor buoys", "--out", str(out), "--json"])
    assert writable.exit_code == 0, writable.output
    with read_only(out, tmp_path / "ro") as ro:
        before = _listing(ro)
        found = CliRunner().invoke(main, ["search", "harbor buoys", "--out", str(ro), "--json"])
        assert found.exit_code == 0, found.output
        assert "corrupt" not in found.output
        # The same hits as on the writable folder (paths aside), and nothing written.
        assert found.stdout.replace(str(ro), str(out)) == writable.stdout
        assert _listing(ro) == before
        ran = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(ro), "--json"])
        assert ran.exit_code == 2
        assert "read-only" in ran.stderr or "permission denied" in ran.stderr.lower()
        assert str(ro) in ran.stderr


def test_a_closed_pipe_ends_search_quietly(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    proc = subprocess.Popen(
        [sys.executable, "-m", "batchsum", "search", "the", "-k", "20", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line, like `| head -0`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 1)
    assert "Error" not in err and "Traceback" not in err, err


def test_stats_and_the_facts_search_read_a_read_only_output(tmp_path: Path) -> None:
    """`index --stats` counts the nodes of a read-only output (it had said 0: SQLite opening the WAL vectors file
    read-only wants its -shm beside it), and `search --role memory` searches it rather than calling its Chroma
    folder corrupt and advising a rebuild."""
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    writable = json.loads(CliRunner().invoke(main, ["index", str(out), "--stats", "--json"]).stdout)
    assert writable["nodes"] > 0 and writable["state"] == "complete", writable
    facts = CliRunner().invoke(main, ["search", "harbor buoys", "--out", str(out), "--role", "memory"])
    assert facts.exit_code == 0, facts.output
    with read_only(out, tmp_path / "ro") as ro:
        before = _listing(ro)
        stats = CliRunner().invoke(main, ["index", str(ro), "--stats", "--json"])
        assert stats.exit_code == 0, stats.output
        seen = json.loads(stats.stdout)
        assert (seen["nodes"], seen["state"]) == (writable["nodes"], "complete"), seen
        found = CliRunner().invoke(main, ["search", "harbor buoys", "--out", str(ro), "--role", "memory"])
        assert found.exit_code == 0 and found.stdout == facts.stdout, found.output
        assert "corrupt" not in found.output and "--rebuild" not in found.output
        assert _listing(ro) == before
