"""One bad file never stops a batch: each gets a one-line reason, exit code 1, good files done."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError
from batchsum.walk import SourceRef, read_document

GOOD = "The committee met on Tuesday and agreed on the plan. " * 10


def _run(corpus: Path, out: Path, *extra: str) -> tuple[int, dict, str]:
    r = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--json", *extra]
    )
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}, r.stderr


def test_bad_files_are_listed_and_good_files_done(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    (c / "latin1.txt").write_bytes(("Caf\xe9 meeting notes. " * 30).encode("latin-1"))
    (c / "utf16.txt").write_bytes(("Notes in UTF-16. " * 20).encode("utf-16"))
    (c / "bad.jsonl").write_text('{"role": "user", "content": "hi"}\n{not json\n')
    (c / "broken.md").symlink_to(c / "missing-target.md")
    (c / "loop").symlink_to(c)  # a folder symlink back to the corpus root
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "binary" in reasons["binary.txt"]
    assert "line 2" in reasons["bad.jsonl"]
    assert "broken symlink" in reasons["broken.md"]
    assert any("symlink loop" in r for r in reasons.values())
    done = {f["relpath"]: f for f in data["files"] if f["status"] == "done"}
    assert {"good.md", "latin1.txt", "utf16.txt"} <= set(done)
    # A legacy-encoded file is decoded as what it is (cp1252), not with replacement characters.
    latin = (tmp_path / "out" / "latin1.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "Café" in latin and "\ufffd" not in latin
    assert (tmp_path / "out" / "good.md" / "summaries" / "L3" / "final.md").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files whatever their permissions")
def test_unreadable_file(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    secret = c / "secret.md"
    secret.write_text(GOOD)
    secret.chmod(0)
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    assert any("permission denied" in p["reason"] for p in data["problems"])


def test_vanished_file_is_an_input_error(tmp_path: Path) -> None:
    ref = SourceRef(path=tmp_path / "gone.md", relpath="gone.md", root=tmp_path)
    with pytest.raises(InputError, match="vanished"):
        read_document(ref)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(tmp_path / "nope")])
    assert r.exit_code == 2
    assert "does not exist" in r.stderr
    r = CliRunner().invoke(main, ["run", str(tmp_path), "--type", "poem"])
    assert r.exit_code == 2 and "unknown --type" in r.stderr
    r = CliRunner().invoke(main, ["run", str(tmp_path), "--thresholds", "1,2"])
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["run"])
    assert r.exit_code == 2 and "no input" in r.stderr


def test_empty_and_whitespace_files_are_none(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "empty.md").write_text("")
    (c / "blank.txt").write_text("   \n\n \t\n")
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 0
    assert data["levels"] == {"NONE": 2}


def test_undecodable_file_and_folder_names_are_skipped_with_a_reason(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    # Names in Latin-1 on a UTF-8 system: Python keeps the bad byte as a lone surrogate.
    Path(os.fsdecode(os.fsencode(c) + b"/caf\xe9.md")).write_text(GOOD)
    bad_dir = Path(os.fsdecode(os.fsencode(c) + b"/r\xe9unions"))
    bad_dir.mkdir()
    (bad_dir / "inside.md").write_text(GOOD)
    out = tmp_path / "out"
    for status in ("done", "unchanged"):  # the second run reads back every state file the first wrote
        r = CliRunner().invoke(main, ["run", str(c), "--out", str(out), "--no-index", "--json"])
        assert r.exit_code == 1, r.output
        data = json.loads(r.stdout)
        reasons = sorted(p["reason"] for p in data["problems"])
        assert reasons == [
            "file name is not valid UTF-8, skipped (rename it)",
            "folder name is not valid UTF-8, skipped (rename it)",
        ]
        assert [(f["relpath"], f["status"]) for f in data["files"]] == [("good.md", status)]
    r = CliRunner().invoke(main, ["report", "--out", str(out)])
    assert r.exit_code == 0, r.output
