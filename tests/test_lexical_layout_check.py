"""``index --check`` and ``--stats`` say what search says of a lexical index of another batchsum version's layout:
search reads it by meaning only, so it is no sound index, and ``batchsum index`` rewrites it."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.index.lexical import LEX_SCHEMA


def _indexed_with_an_older_layout(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "n.txt").write_text("The zeppelin hangar roof leaks whenever the wind turns westerly.\n")
    out = tmp_path / "out"
    batchsum.run(str(src), out=str(out))
    # What the previous release wrote: the same file, recording its own layout.
    with contextlib.closing(sqlite3.connect(out / ".batchsum" / "lexical-batchsum.sqlite3")) as db, db:
        db.execute("UPDATE lex_meta SET value = ? WHERE key = 'schema'", (str(LEX_SCHEMA - 1),))
    return out


def test_check_and_stats_report_an_older_lexical_layout_until_index_rewrites_it(tmp_path: Path) -> None:
    out = _indexed_with_an_older_layout(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["index", str(out), "--check", "--json"])
    report = json.loads(res.output)
    assert res.exit_code == 1 and not report["ok"]
    assert any("another layout" in o and f"batchsum index {out}" in o for o in report["outdated"])
    res = runner.invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 1 and "index OK" not in res.output and "another layout" in res.output
    stats = json.loads(runner.invoke(main, ["index", str(out), "--stats", "--json"]).output)
    assert "another layout" in stats["state"] and stats["state"] != "complete"
    assert runner.invoke(main, ["index", str(out)]).exit_code == 0  # the command the report names
    res = runner.invoke(main, ["index", str(out), "--check", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["ok"]
    assert json.loads(runner.invoke(main, ["index", str(out), "--stats", "--json"]).output)["state"] == "complete"
