"""The output folder and the corpus never overlap, and a foreign file in the tree fails one file only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


def _run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["run", *args, "--no-index", "--no-metrics"])
    return res.exit_code, res.stdout, res.stderr


def test_out_inside_or_equal_to_the_corpus_is_a_usage_error(tmp_path: Path) -> None:
    corpus = tmp_path / "journal"
    shutil.copytree(SAMPLE_CORPUS / "journal", corpus)
    for out in (corpus, corpus / "summaries"):
        code, _, err = _run(str(corpus), "--out", str(out))
        assert code == 2 and "is inside the corpus" in err, err
    code, _, err = _run(str(corpus), "--out", str(tmp_path))
    assert code == 2 and "is inside the output folder" in err
    assert not (corpus / "summaries").exists()


def test_a_foreign_file_where_a_tree_folder_goes_fails_that_file_only(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "2026-10-05.md").mkdir(parents=True)
    (out / "2026-10-05.md" / "summaries").write_text("not a folder")  # blocks that file's tree
    code, stdout, _ = _run(str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--json")
    assert code == 1
    data = json.loads(stdout)
    failed = [f for f in data["files"] if f["status"] == "failed"]
    assert [f["relpath"] for f in failed] == ["2026-10-05.md"]
    assert (
        "cannot write its summaries" in failed[0]["error"] and "a file is where a folder belongs" in failed[0]["error"]
    )
    assert data["run"]["files_done"] == data["run"]["files_total"] - 1


def test_a_damaged_metrics_database_stops_the_run_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    db = out / ".batchsum" / "metrics.duckdb"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"\x00garbage, not a database" * 10)
    res = CliRunner().invoke(main, ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--no-index"])
    assert res.exit_code == 2
    assert f"is not a DuckDB database or is corrupt: {db}" in res.stderr
    assert not list(out.rglob("final.md")) and db.read_bytes().startswith(b"\x00garbage")
    # --no-metrics still runs (the database is left for the user to move or repair).
    res = CliRunner().invoke(
        main, ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--no-index", "--no-metrics"]
    )
    assert res.exit_code == 0


def test_a_full_disk_ends_with_one_line_naming_the_path_and_the_next_run_recovers(tmp_path: Path) -> None:
    """The files it could not write are listed, and the run ends aborted (exit 1) with one line naming the
    state it could not store: the night is still logged and recorded (it had been an exit 2 with no trace)."""
    import resource
    import signal
    import subprocess
    import sys

    from tests.conftest import REPO

    def small_files() -> None:  # a file-size limit stands in for a full disk (no root, no tmpfs needed)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "batchsum", "run", str(SAMPLE_CORPUS), "--out", str(out), "--no-index"]
    full = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, preexec_fn=small_files, timeout=600)
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr
    line = full.stderr.strip().splitlines()[-1]
    assert line.startswith("run aborted:") and str(out) in line and "ulimit -f" in line, line
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert again.returncode == 0, again.stderr
    assert len(list(out.rglob("summaries/L3/final.md"))) == 26


def _two_notes(tmp_path: Path) -> tuple[Path, Path]:
    work, home = tmp_path / "work" / "notes", tmp_path / "home" / "notes"
    for folder, topic in ((work, "The quarterly budget review moved to Thursday."),
                          (home, "The garden fence needs painting before the rain.")):  # fmt: skip
        folder.mkdir(parents=True)
        (folder / "todo.md").write_text(f"# Todo\n\n{topic} " * 8, encoding="utf-8")
    return work, home


def test_tree_names_do_not_depend_on_the_order_of_the_paths(tmp_path: Path) -> None:
    work, home = _two_notes(tmp_path)
    trees = []
    for i, order in enumerate(((work, home), (home, work))):
        out = tmp_path / f"out{i}"
        code, _, err = _run(*map(str, order), "--out", str(out))
        assert code == 0, err
        trees.append(sorted(str(p.relative_to(out)) for p in out.rglob("final.md")))
        finals = {p.parent.parent.parent.parent.name: p.read_text() for p in out.rglob("final.md")}
        assert "budget" in finals["work-notes"] and "fence" in finals["home-notes"]
    assert (
        trees[0] == trees[1] == ["home-notes/todo.md/summaries/L3/final.md", "work-notes/todo.md/summaries/L3/final.md"]
    )
    # Rerun over the first output in the other order: nothing changes, nothing is redone.
    code, stdout, err = _run(str(home), str(work), "--out", str(tmp_path / "out0"), "--json")
    assert code == 0, err
    assert {f["status"] for f in json.loads(stdout)["files"]} == {"unchanged"}


def test_a_previous_summary_of_another_folder_is_never_built_on(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    """Same relpath (``notes/todo.md``) under another folder given: a new source, summarized fresh."""
    work, home = _two_notes(tmp_path)
    journal = tmp_path / "j" / "journal"
    journal.mkdir(parents=True)
    (journal / "day.md").write_text("# Day\n\nA quiet day at the harbour with long walks. " * 8, encoding="utf-8")
    out = tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--thresholds", "10,20,3000,15000"]
    for i, notes in enumerate((work, work, home)):
        if i == 1:  # an edit: the new summary rolls on the previous one of the same file
            (work / "todo.md").write_text((work / "todo.md").read_text() + "\nAlso book the meeting room.\n")
        fake_llm.configure(reset_log=True)
        code, _, err = _run(str(notes), str(journal), "--out", str(out), *llm)
        assert code == 0, err
        prompts = [e.prompt_text for e in fake_llm.log]
        rolled = [p for p in prompts if "Previous summary (for continuity" in p]
        if i == 1:
            assert rolled and all("budget" in p for p in rolled)
        if i == 2:
            assert not rolled, "home's todo.md was summarized on work's previous summary"
            assert any("fence" in p for p in prompts)
    assert "fence" in (out / "notes" / "todo.md" / "summaries" / "L3" / "final.md").read_text()
