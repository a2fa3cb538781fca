"""A search while ``batchsum index --rebuild`` runs gets the index as it was before the rebuild, whole (the new files
are built beside the old ones and swapped in complete), never an empty or growing one with advice to re-index; a
rebuild killed half-way leaves that index searchable and the next ``batchsum index`` completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import REPO

QUERY = "walrus festival"
FILLER = [
    "The boiler repair was agreed with the landlord after a long call.",
    "Quarterly budget review moved to Thursday afternoon again.",
    "Bought seeds for the allotment and repotted the basil.",
    "Long walk by the canal; the herons were back near the lock.",
    "Finished the chapter on medieval trade routes before dinner.",
]
WALRUS = [
    "The walrus festival opened on the pier with a brass band.",
    "At the walrus festival the children painted tusks on their faces.",
    "We left the walrus festival early because the ferry was full.",
]


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An output large enough that a rebuild spans many searches, the walrus notes last in its tree."""
    base = tmp_path_factory.mktemp("rebuild")
    notes = base / "corpus" / "notes"
    notes.mkdir(parents=True)
    for i in range(400):
        text = " ".join(FILLER[(i + j) % len(FILLER)] for j in range(4))
        (notes / f"note-{i:03d}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    for i, text in enumerate(WALRUS):
        (notes / f"zz-walrus-{i}.md").write_text(f"# Walrus {i}\n\n{text}\n", encoding="utf-8")
    assert _invoke("run", str(base / "corpus"), "--out", str(base / "out"), "--quiet", "--no-metrics")[0] == 0
    return base / "out"


def _answer(out: Path) -> tuple[int, list[str], str]:
    code, stdout, stderr = _invoke("search", QUERY, "--out", str(out), "-k", "3", "--json")
    return code, sorted(h["source_path"] for h in json.loads(stdout)) if code == 0 else [], stderr


def _rebuilding(out: Path) -> bool:
    state = json.loads((out / ".batchsum" / "index-batchsum.json").read_text(encoding="utf-8"))
    return not state.get("complete")


def _start_rebuild(out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "batchsum", "index", str(out), "--rebuild"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Bounded: until the rebuild has marked the index (its first write) or ended.
    for _ in range(200_000):
        if proc.poll() is not None or _rebuilding(out):
            break
    return proc


def test_every_search_during_a_rebuild_is_whole_or_says_a_run_is_building_it(built: Path) -> None:
    code, full, _ = _answer(built)
    assert code == 0 and len(full) == 3 and all("walrus" in s for s in full), full
    proc = _start_rebuild(built)
    during = 0
    try:
        for _ in range(5000):  # bounded: the rebuild ends long before
            if proc.poll() is not None:
                break
            marked = _rebuilding(built)
            code, hits, stderr = _answer(built)
            during += marked
            in_progress = "is building it" in stderr and "search again when it ends" in stderr
            assert hits == full or in_progress, (hits, stderr)
            assert "incomplete" not in stderr or in_progress, stderr  # no advice to re-index while one runs
    finally:
        proc.wait(timeout=600)
    assert proc.returncode == 0
    assert during > 0  # some searches ran while the rebuild was under way
    assert _answer(built)[:2] == (0, full)
    assert _invoke("index", str(built), "--check")[0] == 0


def test_a_killed_rebuild_leaves_the_old_index_searchable_and_the_next_index_completes_it(
    built: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    subprocess.run(["cp", "-a", str(built), str(out)], check=True)
    _, full, _ = _answer(out)
    proc = _start_rebuild(out)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    code, hits, stderr = _answer(out)
    assert code == 0 and hits == full, (hits, stderr)
    if _rebuilding(out):  # killed before its end (almost always: it had only just begun)
        assert "interrupted" in stderr and "may miss" not in stderr, stderr
        assert _invoke("search", QUERY, "--out", str(out), "--strict")[0] == 2
    assert _invoke("index", str(out))[0] == 0
    assert not _rebuilding(out) and _invoke("index", str(out), "--check")[0] == 0
    assert _answer(out) == (0, full, "")


def _copy(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    subprocess.run(["cp", "-a", str(built), str(out)], check=True)
    return out


def test_stats_and_check_during_a_rebuild_say_a_run_is_rebuilding_it_and_advise_no_repair(
    built: Path, tmp_path: Path
) -> None:
    out = _copy(built, tmp_path)
    before = json.loads(_invoke("index", str(out), "--stats", "--json")[1])
    assert before["state"] == "complete" and before["nodes"] > 400, before
    proc = _start_rebuild(out)
    said_rebuilding = checks = 0
    try:
        for i in range(5000):  # bounded: the rebuild ends long before
            if proc.poll() is not None:
                break
            code, stdout, _ = _invoke("index", str(out), "--stats", "--json")
            st = json.loads(stdout)
            rebuilding = "is rebuilding it" in st["state"] and "pid" in st["state"]
            assert code == 0 and (st["state"] == "complete" or rebuilding), st["state"]
            assert st["nodes"] == before["nodes"], st  # the old vectors until the new ones are whole
            said_rebuilding += rebuilding
            if i % 4 == 0:  # a check is slower: every fourth round
                code, stdout, _ = _invoke("index", str(out), "--check")
                checks += 1
                assert "repair" not in stdout and "--rebuild" not in stdout, stdout
                assert code == 0 and ("index OK" in stdout or "is rebuilding it" in stdout), (code, stdout)
    finally:
        proc.wait(timeout=600)
    assert proc.returncode == 0 and checks > 0
    assert said_rebuilding > 0  # some answers came while the rebuild was under way
    assert json.loads(_invoke("index", str(out), "--stats", "--json")[1])["state"] == "complete"


def _temp_files(out: Path) -> list[str]:
    """The new files a rebuild writes beside the lexical index and the node vectors (tree.atomic_target's names)."""
    return sorted(p.name for p in (out / ".batchsum").glob(".*.tmp*"))


def test_the_next_index_removes_the_new_files_a_killed_rebuild_left(built: Path, tmp_path: Path) -> None:
    out = _copy(built, tmp_path)
    proc = _start_rebuild(out)
    # Bounded: until the rebuild is writing its new lexical file (after the vectors), or ended.
    for _ in range(2_000_000):
        if proc.poll() is not None or any(".lexical-" in name for name in _temp_files(out)):
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    left = _temp_files(out)
    assert any(".lexical-" in n for n in left) and any(".vectors-" in n for n in left), left
    assert _invoke("index", str(out))[0] == 0
    assert _temp_files(out) == []
    assert _invoke("index", str(out), "--check")[0] == 0
