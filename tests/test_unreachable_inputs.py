"""Input a run cannot look into (a folder it may not list, a link whose target went away) is skipped with a
reason naming it, counted as skipped, and what was summarized from it before is kept, not deleted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

TEXT = "Walked to Abbotsford in the rain. The new roof of the library is finished at last.\n" * 4
# Root reads a folder whatever its mode: the run is then made without the capabilities that let it.
NO_DAC = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search", "--"]


def _run_json(args: list[str]) -> tuple[int, dict]:
    """``batchsum run ARGS --json`` as a user without root's read-anything rights: exit code and output."""
    if os.geteuid() != 0:
        res = CliRunner().invoke(main, ["run", *args, "--json"], catch_exceptions=False)
        return res.exit_code, json.loads(res.stdout)
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "running as root needs setpriv to drop the right to read anything"
    cmd = [setpriv, *NO_DAC, sys.executable, "-m", "batchsum", "run", *args, "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    return done.returncode, json.loads(done.stdout)


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    src, out = tmp_path / "c", tmp_path / "out"
    (src / "team").mkdir(parents=True)
    (src / "diary_2024-03-01.md").write_text(TEXT, encoding="utf-8")
    (src / "team" / "t1.md").write_text(TEXT.replace("library", "harbour"), encoding="utf-8")
    (src / "team" / "t2.md").write_text(TEXT.replace("library", "station"), encoding="utf-8")
    first = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    return src, out


def test_an_unlistable_folder_is_skipped_and_its_summaries_kept(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path)
    (src / "team").chmod(0)
    try:
        code, data = _run_json([str(src), "--out", str(out)])
    finally:
        (src / "team").chmod(0o755)
    assert code == 1, data
    assert [(p["relpath"], p["reason"].split(":")[0]) for p in data["problems"]] == [("team", "cannot list folder")]
    status = {f["relpath"]: f["status"] for f in data["files"]}
    assert status == {"team": "skipped", "diary_2024-03-01.md": "unchanged"}
    assert data["run"]["files_skipped"] == 1 and data["run"]["files_deleted"] == 0
    assert not list(out.glob("team/*/deleted")), "nothing already summarized is moved aside"
    again = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--json"], catch_exceptions=False)
    assert {f["status"] for f in json.loads(again.stdout)["files"]} == {"unchanged"}


def test_a_link_to_a_folder_that_went_away_is_a_broken_link_not_a_deletion(tmp_path: Path) -> None:
    disk, src, out = tmp_path / "disk", tmp_path / "c", tmp_path / "out"
    (disk / "arch").mkdir(parents=True)
    (disk / "arch" / "old.md").write_text(TEXT, encoding="utf-8")
    src.mkdir()
    (src / "now.md").write_text(TEXT.replace("library", "harbour"), encoding="utf-8")
    (src / "arch").symlink_to(disk / "arch")
    (src / "loop").symlink_to("loop")
    args = ["run", str(src), "--out", str(out), "--follow-symlinks", "--json"]
    CliRunner().invoke(main, args, catch_exceptions=False)
    disk.rename(tmp_path / "unmounted")
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    reasons = {p["relpath"]: p["reason"] for p in data["problems"]}
    assert reasons == {"arch": "broken symlink, skipped", "loop": "symlink loop, skipped"}
    assert data["run"]["files_deleted"] == 0 and data["run"]["files_skipped"] == 2
    assert "passed over" not in " ".join(w if isinstance(w, str) else json.dumps(w) for w in data["warnings"])
    assert (out / "arch" / "old.md" / "summaries" / "L3" / "final.md").is_file()
