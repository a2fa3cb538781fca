"""``batchsum plan`` on the command line: a run's own command line previews that run."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import click
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

TEXT = (
    "The harbour committee met on Tuesday to plan the winter maintenance of the northern pier. "
    "Marta Olsen reported that two mooring rings are cracked and must be replaced before the first storm. "
    "The committee agreed to order new rings from the foundry in Bergen and to close the pier for three days. "
)


def _invoke(args: list[str]) -> click.testing.Result:
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    src, out = tmp_path / "notes", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    (src / "journal" / "2026-10-01.md").write_text("# Pier\n\n" + TEXT * 3, encoding="utf-8")
    (src / "journal" / "2026-10-02.md").write_text("# Rings\n\n" + TEXT * 2, encoding="utf-8")
    return src, out


def _git_head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout


def _options(name: str) -> set[str]:
    cmd = main.get_command(click.Context(main), name)
    assert cmd is not None
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")}


def test_plan_takes_every_option_of_run() -> None:
    assert _options("run") - _options("plan") == set()


def test_a_cron_line_previews_its_run_and_writes_nothing(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path)
    cron = (
        f"{src} --out {out} --type journal --quiet --no-index --no-metrics --metrics-db {tmp_path / 'm.duckdb'} "
        f"--wait --yes --git --log-file {tmp_path / 'events.log'} --log-format json --processes 1 "
        "--executor local --no-progress -v"
    )
    assert _invoke(["run", *shlex.split(cron)]).exit_code == 0
    (src / "journal" / "2026-10-03.md").write_text("# Storm\n\n" + TEXT.replace("pier", "quay") * 2, "utf-8")
    log_size = (tmp_path / "events.log").stat().st_size
    commits = _git_head(out)

    res = _invoke(["plan", *shlex.split(cron), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["new"] == ["journal/2026-10-03.md"]
    assert (tmp_path / "events.log").stat().st_size == log_size  # the plan is no event of the run
    assert _git_head(out) == commits
    assert not (tmp_path / "m.duckdb").exists() and not (out / ".batchsum" / "chroma").exists()


def test_plan_previews_a_changed_index_setting(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path)
    assert _invoke(["run", str(src), "--out", str(out), "--quiet"]).exit_code == 0
    res = _invoke(["plan", str(src), "--out", str(out), "--collection", "notes2", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["settings_changed"] == ["--collection batchsum -> notes2"]


def test_plan_json_lists_unchanged_files_as_the_library_does(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path)
    assert _invoke(["run", str(src), "--out", str(out), "--no-index", "--quiet"]).exit_code == 0
    (src / "journal" / "2026-10-02.md").write_text("# Rings\n\n" + TEXT.replace("Bergen", "Oslo") * 2, "utf-8")
    d = json.loads(_invoke(["plan", str(src), "--out", str(out), "--json"]).output)
    assert {k: d[k] for k in ("new", "changed", "unchanged", "deleted")} == {
        "new": [], "changed": ["journal/2026-10-02.md"], "unchanged": ["journal/2026-10-01.md"], "deleted": []
    }  # fmt: skip
    assert d["unchanged"] == batchsum.plan(src, out=out).unchanged


def test_plan_names_the_digests_a_deletion_removes(tmp_path: Path) -> None:
    """A folder whose only file goes loses its digest: the plan says so (it had listed only the month and
    year to redo, and the run then removed the folder's digest as well)."""
    corpus = tmp_path / "corpus"
    for folder, name in (("notes", "harbour"), ("calls", "lighthouse")):
        (corpus / folder).mkdir(parents=True)
        (corpus / folder / f"{name}.md").write_text(
            "We walked along the harbour wall to the old lighthouse and counted the boats. " * 30, encoding="utf-8"
        )
    out = tmp_path / "out"
    assert _invoke(["run", str(corpus), "--out", str(out), "--no-index", "-q"]).exit_code == 0
    (corpus / "calls" / "lighthouse.md").unlink()
    plan = _invoke(["plan", str(corpus), "--out", str(out)])
    assert "digests to remove (no files left): 1 (folder:calls)" in plan.output, plan.output
    data = json.loads(_invoke(["plan", str(corpus), "--out", str(out), "--json"]).output)
    assert data["periods"]["removed"] == ["folder:calls"]
