"""--git versioning with the real git binary."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from batchsum.gitver import commit_run, ensure_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def bare_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine with no global or system git identity, like a fresh CI runner."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)


def _git(out: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(out), *args], check=True, capture_output=True, text=True).stdout


def test_one_commit_per_run_with_counts(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert ensure_repo(out) is True
    assert ".batchsum/" in (out / ".gitignore").read_text().splitlines()
    assert _git(out, "config", "--local", "user.name").strip() == "batchsum"

    (out / "a" / "summaries" / "L3").mkdir(parents=True)
    (out / "a" / "summaries" / "L3" / "final.md").write_text("first\n")
    (out / ".batchsum").mkdir()
    (out / ".batchsum" / "lock").write_text("{}")
    sha1 = commit_run(out, added=1, changed=0, deleted=0, run_id="r1")
    assert sha1 is not None and len(sha1) == 40

    (out / "a" / "summaries" / "L3" / "final.md").write_text("second\n")
    (out / "b.md").write_text("new\n")
    sha2 = commit_run(out, added=3, changed=2, deleted=1, run_id="r2")
    assert sha2 is not None and sha2 != sha1

    log = _git(out, "log", "--format=%H %s").splitlines()
    assert log == [
        f"{sha2} batchsum run r2: 3 added, 2 changed, 1 deleted",
        f"{sha1} batchsum run r1: 1 added, 0 changed, 0 deleted",
    ]
    tracked = _git(out, "ls-files").split()
    assert ".batchsum/lock" not in tracked and ".gitignore" in tracked


def test_nothing_to_commit_returns_none(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.md").write_text("x\n")
    assert commit_run(out, added=1, changed=0, deleted=0, run_id="r1") is not None
    assert commit_run(out, added=0, changed=0, deleted=0, run_id="r2") is None
    assert len(_git(out, "log", "--oneline").splitlines()) == 1


def test_existing_gitignore_is_extended_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gitignore").write_text("*.tmp")
    assert ensure_repo(out)
    assert ensure_repo(out)  # idempotent
    lines = (out / ".gitignore").read_text().splitlines()
    assert lines[0] == "*.tmp" and lines.count(".batchsum/") == 1


def test_failing_hook_is_a_warning_not_an_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "out"
    assert ensure_repo(out)
    hook = out / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'hook says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    (out / "x.md").write_text("x\n")
    with caplog.at_level(logging.WARNING, logger="batchsum.gitver"):
        assert commit_run(out, added=1, changed=0, deleted=0, run_id="r1") is None
    assert "hook says no" in caplog.text


def test_no_git_binary_returns_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.md").write_text("x\n")
    with caplog.at_level(logging.WARNING, logger="batchsum.gitver"):
        assert ensure_repo(out) is False
        assert commit_run(out, added=1, changed=0, deleted=0, run_id="r1") is None
    assert "git is not installed or not on PATH" in caplog.text
    assert not (out / ".git").exists()


def test_git_is_remembered_and_a_commit_says_what_it_holds(tmp_path: Path) -> None:
    """`--git` is the folder's choice: the day-two command without it still commits; after a run with
    --no-git, the next commit says it holds what runs without --git wrote, not "0 changed"."""
    from click.testing import CliRunner

    from batchsum.cli import main

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2026-10-01.md").write_text("We rowed out to the buoy at dawn and found the antenna bent by the gale.\n")

    def run(*extra: str) -> None:
        res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q", *extra])
        assert res.exit_code == 0, res.output

    run("--git")
    (src / "2026-10-02.md").write_text("Jonas fixed the antenna with a spare clamp and the readings came back.\n")
    run()  # the day-two command: no --git, and still a commit
    assert _git(out, "log", "--format=%s").splitlines()[0].endswith(": 1 added, 0 changed, 0 deleted")
    (src / "2026-10-03.md").write_text("Rain all day; the boat stayed in and I wrote up the buoy report.\n")
    run("--no-git")
    assert len(_git(out, "log", "--format=%s").splitlines()) == 2
    run("--git")  # nothing new to summarize, but the last run's files are not committed yet
    subject = _git(out, "log", "--format=%s").splitlines()[0]
    assert "written since the last commit (runs without --git)" in subject and " 0 changed" not in subject, subject


def test_a_night_whose_files_were_only_touched_changes_no_page_and_makes_no_commit(tmp_path: Path) -> None:
    """A file saved again unchanged (an editor, a sync tool) is read, found as it was, and leaves the
    output as it was: the index page keeps its time stamp, so `--git` has nothing to commit."""
    import json
    import os

    from click.testing import CliRunner

    from batchsum.cli import main

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    entry = src / "2026-10-01.md"
    entry.write_text("We rowed out to the buoy at dawn and found the antenna bent by the gale.\n")
    args = ["run", str(src), "--out", str(out), "--no-index", "-q", "--git"]
    assert CliRunner().invoke(main, args).exit_code == 0
    page = (out / "index.md").read_bytes()
    st = entry.stat()
    os.utime(entry, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touched five seconds later
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["run"]["files_unchanged"] == 1
    assert (out / "index.md").read_bytes() == page
    assert len(_git(out, "log", "--format=%s").splitlines()) == 1
    assert _git(out, "status", "--porcelain") == ""


def test_a_run_that_only_redoes_digests_says_so_in_its_commit(tmp_path: Path) -> None:
    """New digest budgets change no file, yet this run rewrites the digests: its commit names them, not
    "files written since the last commit (runs without --git)"."""
    from click.testing import CliRunner

    from batchsum.cli import main

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for day in range(1, 8):
        (src / f"2026-10-0{day}.md").write_text(
            f"Day {day}: we rowed out to buoy {day} at dawn and found its antenna bent by the gale. "
            f"Jonas fixed it with clamp number {day * 3} and the readings came back before noon. "
            f"In the afternoon the tide gauge at pier {day} drifted again, so we logged it by hand.\n"
        )
    args = ["run", str(src), "--out", str(out), "--no-index", "-q", "--git"]
    assert CliRunner().invoke(main, args).exit_code == 0
    res = CliRunner().invoke(main, [*args, "--month-words", "40"])
    assert res.exit_code == 0, res.output
    subjects = _git(out, "log", "--format=%s").splitlines()
    assert len(subjects) == 2 and "digests" in _git(out, "show", "--stat", "--format=", "HEAD")
    assert subjects[0].endswith(": 0 added, 0 changed, 0 deleted; 2 digests redone"), subjects[0]
