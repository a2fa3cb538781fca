"""`batchsum report` and `batchsum export` over real metrics stores (DuckDB + Parquet in temp dirs)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import statistics
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics import open_store
from batchsum.model import TARGET_RATIO, FileRecord, NodeRecord, RunRecord, SummaryLevel
from batchsum.tree import iter_tree
from tests.conftest import SAMPLE_CORPUS
from tests.test_eval_cli import _fixture as eval_fixture
from tests.test_metrics_store import BEARER, SECRET, file_digest, make_run

RUN_A = "20240101T000000Z-aaaaaa"
RUN_B = "20240102T000000Z-bbbbbb"


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def report_json(out: Path, *args: str) -> dict[str, Any]:
    res = cli("report", "--out", str(out), "--format", "json", *args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


class Store:
    """The two recorded runs of the fixture, kept for computing expectations."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.runs: dict[str, tuple[RunRecord, list[FileRecord], list[NodeRecord]]] = {}


def _fixture_runs() -> dict[str, tuple[RunRecord, list[FileRecord], list[NodeRecord]]]:
    # Run A: a full extractive run with a failure and LLM-style fallback nodes.
    a_run, a_files, a_nodes = make_run(
        RUN_A,
        "2024-01-01T00:00:00Z",
        files=[
            ("journal/2024-01-01.md", "journal", "BRIEF", 300, 57),
            ("journal/2024-01-02.md", "journal", "BRIEF", 400, 100),
            ("journal/2024-01-03.md", "journal", "STANDARD", 1200, 150),
            ("meetings/standup.txt", "conversation", "STANDARD", 2000, 220),
            ("meetings/retro.vtt", "conversation", "DETAILED", 9000, 700),
            ("docs/design.md", "document", "HIERARCHICAL", 40000, 1800),
            ("notes/tiny.md", "journal", "NONE", 40, 0),
        ],
        command=f"batchsum run corpus --api-key {SECRET}",
    )
    a_files.append(
        FileRecord(
            RUN_A,
            "journal/broken.md",
            None,
            10,
            "journal",
            None,
            0,
            0,
            0.0,
            0,
            0,
            0,
            0,
            0,
            1.0,
            "failed",
            error=f"cannot decode: invalid byte 0xff (server said Authorization: Bearer {BEARER})",
        )
    )
    for n in a_nodes:
        if n.relpath == "meetings/retro.vtt" and n.level == "L1" and n.index in (1, 2):
            n.backend = "extractive (fallback)"
            n.error = "LLM request timed out after 120 s"
    a_run.files_failed = 1
    a_run.status = "partial"
    for f in a_files:
        if f.relpath == "meetings/retro.vtt":
            f.fallback_nodes = 2

    # Run B: incremental LLM run; one journal changed, one file deleted, the rest unchanged.
    b_files: list[FileRecord] = []
    b_nodes: list[NodeRecord] = []
    for f in a_files:
        if f.status == "failed" or f.relpath == "notes/tiny.md":
            continue
        if f.relpath == "journal/2024-01-02.md":
            continue
        b_files.append(
            FileRecord(
                RUN_B,
                f.relpath,
                f.sha256,
                f.bytes,
                f.content_type,
                f.level,
                f.input_tokens,
                f.output_tokens,
                f.compression_ratio,
                0,
                0,
                0,
                0,
                0,
                0.5,
                "unchanged",
            )
        )
    changed = "journal/2024-01-02.md"
    b_nodes.append(
        NodeRecord(
            RUN_B,
            changed,
            f"{changed}:summary:L3:final",
            "L3",
            None,
            None,
            450,
            81,
            0.18,
            "llm",
            "m",
            2,
            900.0,
            False,
            prompt_tokens=600,
            completion_tokens=81,
            llm_calls=2,
        )
    )
    b_nodes.append(
        NodeRecord(
            RUN_B,
            "journal/2024-01-05.md",
            "journal/2024-01-05.md:summary:L3:final",
            "L3",
            None,
            None,
            250,
            45,
            0.18,
            "llm",
            "m",
            1,
            0.0,
            True,
            prompt_tokens=300,
            completion_tokens=45,
            llm_calls=0,
        )
    )
    b_files.append(
        FileRecord(RUN_B, changed, "new-sha", 1800, "journal", "BRIEF", 450, 81, 0.18, 0, 1, 2, 600, 81, 900.0, "done")
    )
    b_files.append(
        FileRecord(
            RUN_B,
            "journal/2024-01-05.md",
            "sha5",
            1000,
            "journal",
            "BRIEF",
            250,
            45,
            0.18,
            0,
            1,
            0,
            300,
            45,
            5.0,
            "done",
        )
    )
    b_files.append(
        FileRecord(RUN_B, "notes/tiny.md", "x", 160, "journal", "NONE", 40, 0, 0.0, 0, 0, 0, 0, 0, 0.0, "deleted")
    )
    b_run = RunRecord(
        RUN_B,
        "2024-01-02T00:00:00Z",
        "2024-01-02T00:00:09Z",
        "batchsum run corpus --base-url http://127.0.0.1:8/v1",
        "llm",
        "m",
        "ok",
        "out",
        files_total=8,
        files_done=2,
        files_unchanged=6,
        files_deleted=1,
        input_tokens=sum(f.input_tokens for f in b_files if f.status != "deleted"),
        output_tokens=sum(f.output_tokens for f in b_files if f.status != "deleted"),
        llm_calls=2,
        cache_hits=1,
        prompt_tokens=900,
        completion_tokens=126,
        nodes_computed=2,
        wall_ms=9000.0,
    )
    return {RUN_A: (a_run, a_files, a_nodes), RUN_B: (b_run, b_files, b_nodes)}


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "out")
    s.runs = _fixture_runs()
    ms = open_store(s.out)
    for rec in s.runs.values():
        ms.record_run(*rec)
    return s


def _p90(values: list[float]) -> float:
    xs = sorted(values)
    pos = 0.9 * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def test_json_statistics_match_the_recorded_files(store: Store) -> None:
    data = report_json(store.out)
    assert data["filters"]["run_ids"] == [RUN_B]
    _, b_files, _ = store.runs[RUN_B]
    live = [f for f in b_files if f.status != "deleted"]
    by_level = {g["level"]: g for g in data["by_level"]}
    assert set(by_level) == {"BRIEF", "STANDARD", "DETAILED", "HIERARCHICAL"}
    for level, g in by_level.items():
        rows = [f for f in live if f.level == level]
        ratios = [f.compression_ratio for f in rows]
        assert g["files"] == len(rows)
        assert g["tokens_in"] == sum(f.input_tokens for f in rows)
        assert g["tokens_out"] == sum(f.output_tokens for f in rows)
        assert g["ratio_mean"] == pytest.approx(statistics.mean(ratios))
        assert g["ratio_median"] == pytest.approx(statistics.median(ratios))
        assert g["ratio_p90"] == pytest.approx(_p90(ratios))
        assert g["target"] == TARGET_RATIO[SummaryLevel(level)]
    # Unchanged files take their node counts from run A, where retro.vtt had 2 fallbacks out of 4 nodes.
    assert by_level["DETAILED"]["nodes"] == 4 and by_level["DETAILED"]["fallback_nodes"] == 2
    assert by_level["DETAILED"]["fallback_share"] == pytest.approx(0.5)
    assert data["totals"]["status_counts"] == {"deleted": 1, "done": 2, "unchanged": 5}
    by_type = {g["content_type"]: g for g in data["by_type"]}
    assert by_type["conversation"]["tokens_in"] == 11000
    summarized = [f for f in live if f.level != "NONE"]
    expected_worst = max(summarized, key=lambda f: f.compression_ratio / TARGET_RATIO[SummaryLevel(f.level)])
    assert data["worst_files"][0]["relpath"] == expected_worst.relpath
    assert [t["run_id"] for t in data["trend"]] == [RUN_A, RUN_B]
    trend_b = data["trend"][1]
    # Only nodes that sent requests count as spent; the cache hit is a saved call.
    assert trend_b["tokens_spent"] == 681 and trend_b["calls_saved"] == 1 and trend_b["files_changed"] == 3
    assert data["trend"][0]["tokens_spent"] == 0
    assert data["cost"] is None


def test_last_type_run_and_price_filters(store: Store) -> None:
    data = report_json(store.out, "--last", "2", "--price-per-1k", "2.5")
    assert data["filters"]["run_ids"] == [RUN_A, RUN_B]
    assert [f["relpath"] for f in data["failures"]] == ["journal/broken.md"]
    assert "***" in data["failures"][0]["error"] and BEARER not in data["failures"][0]["error"]
    assert data["fallback_reasons"] == [
        {"reason": "LLM request timed out after 120 s", "nodes": 2, "files": 1, "example": "meetings/retro.vtt"}
    ]
    assert data["cost"]["selected_runs"] == pytest.approx(681 / 1000 * 2.5)
    only = report_json(store.out, "--run", RUN_A[:12], "--type", "conversation")
    assert only["filters"]["run_ids"] == [RUN_A]
    assert [g["content_type"] for g in only["by_type"]] == ["conversation"]
    assert {g["level"] for g in only["by_level"]} == {"STANDARD", "DETAILED"}
    assert only["failures"] == []  # the failure is a journal

    res = cli("report", "--out", str(store.out), "--run", "nope")
    assert res.exit_code == 2 and "no run 'nope'" in res.output
    res = cli("report", "--out", str(store.out), "--run", RUN_A, "--last", "2")
    assert res.exit_code == 2 and "cannot be combined" in res.output


def test_table_and_markdown_output(store: Store) -> None:
    res = cli("report", "--out", str(store.out), "--last", "2")
    assert res.exit_code == 0
    text = res.stdout
    for title in (
        "Overview",
        "Compression by level",
        "Compression by content type",
        "or more above their level's target",
        "Failures (1)",
        "Run-over-run trend",
    ):
        assert title in text
    assert "█" in text and "journal/broken.md" in text
    # The overall ratio is the summarized files' (a file kept whole counts in and out alike): said so.
    assert "ratio of the summarized files" in text
    # Only files far above their target are listed; a file within its level's band is no "worst" file.
    worst = json.loads(cli("report", "--out", str(store.out), "--last", "2", "--json").stdout)["worst_files"]
    section = text.split("above their level's target", 1)[1].split("Failures", 1)[0]
    for w in worst:
        listed = any(ln.startswith(w["relpath"][:12]) for ln in section.splitlines())
        assert listed == (w["vs_target"] >= 1.5), (w, section)
    level_lines = [ln for ln in text.splitlines() if ln.startswith(("BRIEF ", "STANDARD ", "HIERARCHICAL "))]
    assert len(level_lines) == 3
    # aligned: the right-aligned "mean" column ends at the same position on every line
    assert len({ln.index(" %") for ln in level_lines}) == 1
    assert SECRET not in text and BEARER not in text

    md = cli("report", "--out", str(store.out), "--format", "md").stdout
    assert md.startswith("# batchsum report")
    assert "| level | files |" in md and "| ---: |" in md


def test_csv_output_parses(store: Store) -> None:
    res = cli("report", "--out", str(store.out), "--format", "csv", "--last", "2")
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["section", "key", "metric", "value"]
    assert all(len(r) == 4 for r in rows)
    got = {(r[0], r[1], r[2]): r[3] for r in rows}
    assert got[("by_level", "HIERARCHICAL", "tokens_in")] == "40000"
    assert got[("trend", RUN_B, "calls_saved")] == "1"
    assert any(r[0] == "histogram" for r in rows)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [v or "" for k, v in attrs if k in ("src", "href")]


def test_html_report_is_self_contained_with_svg(store: Store, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    res = cli("report", "--out", str(store.out), "--html", str(target), "--last", "2")
    assert res.exit_code == 0
    text = target.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(text)
    parser.close()
    assert "<svg" in text
    assert parser.tags.count("svg") >= 4  # histograms per level, tokens per type, trend charts
    assert "script" not in parser.tags and "link" not in parser.tags
    assert parser.urls == []
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert SECRET not in text and BEARER not in text


def test_export_all_formats(store: Store, tmp_path: Path) -> None:
    for fmt in ("parquet", "csv", "json"):
        dest = tmp_path / f"export-{fmt}"
        res = cli("export", "--format", fmt, "--out", str(store.out), str(dest))
        assert res.exit_code == 0, res.output
        assert sorted(p.name for p in dest.iterdir()) == sorted(
            f"{t}.{fmt}" for t in ("runs", "files", "nodes", "evals")
        )
    n_files = sum(len(f) for _, f, _ in store.runs.values())
    assert pq.read_table(tmp_path / "export-parquet" / "files.parquet").num_rows == n_files
    with open(tmp_path / "export-csv" / "nodes.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == sum(len(n) for _, _, n in store.runs.values())
    runs = json.loads((tmp_path / "export-json" / "runs.json").read_text())
    assert [r["run_id"] for r in runs] == [RUN_A, RUN_B]
    for p in tmp_path.rglob("export-*/*"):
        if p.suffix in (".csv", ".json"):
            assert SECRET not in p.read_text() and BEARER not in p.read_text()
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    res = cli("export", "--out", str(store.out), str(blocker))
    assert res.exit_code == 2


def test_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    res = cli("report", "--out", str(tmp_path / "nothing"))
    assert res.exit_code == 2
    assert res.stderr.startswith("Error: no metrics found for")
    res = cli("export", "--out", str(tmp_path / "nothing"), str(tmp_path / "dest"))
    assert res.exit_code == 2
    assert not (tmp_path / "dest").exists()


def test_report_on_corrupt_or_newer_database_exits_2_and_leaves_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    db = out / ".batchsum" / "metrics.duckdb"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"\x00garbage" * 1000)
    before = db.read_bytes()
    res = cli("report", "--out", str(out))
    assert res.exit_code == 2 and f"is not a DuckDB database or is corrupt: {db}" in res.stderr
    assert db.read_bytes() == before

    db.unlink()
    open_store(out).record_run(*make_run("r1", "2024-01-01T00:00:00Z"))
    shutil.rmtree(out / ".batchsum" / "parquet")
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO _batchsum_migrations VALUES ('m050_future', '2099-01-01')")
    con.close()
    digest = file_digest(db)
    res = cli("report", "--out", str(out))
    assert res.exit_code == 2 and "was written by a newer batchsum" in res.stderr
    assert file_digest(db) == digest


def test_report_reads_the_database_when_there_are_no_snapshots(store: Store) -> None:
    shutil.rmtree(store.out / ".batchsum" / "parquet")
    data = report_json(store.out, "--last", "2")
    assert data["source"].startswith("database ")
    assert [t["run_id"] for t in data["trend"]] == [RUN_A, RUN_B]


def test_report_reads_the_database_when_snapshots_are_damaged(store: Store) -> None:
    for snap in (store.out / ".batchsum" / "parquet" / "runs").rglob("*.parquet"):
        snap.write_bytes(b"not parquet")
    data = report_json(store.out, "--last", "2")
    assert data["source"].startswith("database ")
    assert [t["run_id"] for t in data["trend"]] == [RUN_A, RUN_B]


HOLDER = textwrap.dedent(
    """
    import sys, duckdb
    con = duckdb.connect(sys.argv[1])          # a write connection: holds the file lock
    con.execute("BEGIN TRANSACTION")           # ... and is half-way through recording a run
    con.execute("INSERT INTO runs (run_id, started_at, status, command) "
                "VALUES ('20240103T000000Z-half', '2024-01-03T00:00:00Z', 'ok', 'x')")
    con.execute("INSERT INTO files (run_id, relpath, status, level, content_type, input_tokens, output_tokens, "
                "compression_ratio) VALUES ('20240103T000000Z-half', 'half.md', 'done', 'BRIEF', 'journal', "
                "100, 99, 0.99)")
    print("holding", flush=True)
    sys.stdin.read()
    con.execute("ROLLBACK")
    """
)


@pytest.fixture()
def held_db(store: Store) -> Iterator[Store]:
    db = store.out / ".batchsum" / "metrics.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
        with pytest.raises(duckdb.IOException, match="lock"):
            duckdb.connect(str(db), read_only=True).close()
        yield store
    finally:
        proc.communicate("", timeout=60)


def test_report_while_another_process_writes(held_db: Store, tmp_path: Path) -> None:
    out = held_db.out
    pdir = out / ".batchsum" / "parquet"
    # A run whose files/nodes snapshots are written but whose runs snapshot is not yet: mid-recording.
    for table in ("files", "nodes"):
        part = pdir / table / "run_id=20240104T000000Z-partial" / "part-0.parquet"
        part.parent.mkdir(parents=True)
        shutil.copyfile(pdir / table / f"run_id={RUN_B}" / "part-0.parquet", part)

    data = report_json(out, "--last", "5")
    assert data["source"].startswith("Parquet snapshots")
    assert [t["run_id"] for t in data["trend"]] == [RUN_A, RUN_B]
    assert data["filters"]["run_ids"] == [RUN_A, RUN_B]
    text = json.dumps(data)
    assert "20240104T000000Z-partial" not in text and "half.md" not in text
    for fmt in ("table", "md", "csv"):
        res = cli("report", "--out", str(out), "--format", fmt)
        assert res.exit_code == 0 and "20240104T000000Z-partial" not in res.stdout
    res = cli("export", "--format", "json", "--out", str(out), str(tmp_path / "exp"))
    assert res.exit_code == 0
    assert len(json.loads((tmp_path / "exp" / "runs.json").read_text())) == 2

    # No snapshots at all: the locked database is read from a private copy, committed runs only.
    shutil.rmtree(pdir)
    data = report_json(out, "--last", "5")
    assert data["source"].startswith("copy of")
    assert [t["run_id"] for t in data["trend"]] == [RUN_A, RUN_B]
    assert "half.md" not in json.dumps(data)


def test_old_unscrubbed_rows_are_scrubbed_in_reports(tmp_path: Path) -> None:
    out = tmp_path / "out"
    open_store(out).record_run(*make_run("r1", "2024-01-01T00:00:00Z"))
    shutil.rmtree(out / ".batchsum" / "parquet")
    # As if written by a tool that did not scrub: the report still must not show it.
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"))
    con.execute("UPDATE runs SET command = ?", [f"batchsum run x --api-key {SECRET}"])
    con.execute("UPDATE files SET status = 'failed', error = ? WHERE relpath = 'notes/tiny.md'", [f"Bearer {BEARER}"])
    con.close()
    for fmt in ("table", "md", "json", "csv"):
        res = cli("report", "--out", str(out), "--format", fmt)
        assert res.exit_code == 0
        assert SECRET not in res.stdout and BEARER not in res.stdout, fmt


def _front_matter_nodes(out: Path) -> list[dict[str, Any]]:
    return [n.meta for n in iter_tree(out)]


@pytest.mark.slow
def test_end_to_end_run_records_totals_equal_to_the_tree(tmp_path: Path) -> None:
    if not SAMPLE_CORPUS.is_dir() or not any(SAMPLE_CORPUS.rglob("*")):
        pytest.skip("sample_corpus/ is absent")
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    out = tmp_path / "out"
    res = cli("run", str(corpus), "--out", str(out), "--no-index", "--api-key", SECRET, "--quiet")
    assert res.exit_code in (0, 1), res.output
    metas = _front_matter_nodes(out)
    assert metas, "the run wrote no summaries"
    db = out / ".batchsum" / "metrics.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    try:
        out_tokens, nodes_computed, command = con.execute(
            "SELECT output_tokens, nodes_computed, command FROM runs"
        ).fetchone()
        nodes = {
            r[0]: r[1:]
            for r in con.execute("SELECT node_id, level, input_tokens, output_tokens, backend FROM nodes").fetchall()
        }
        files = {
            r[0]: r[1:]
            for r in con.execute(
                "SELECT relpath, output_tokens, level, content_type, sha256 FROM files WHERE status = 'done'"
            ).fetchall()
        }
    finally:
        con.close()
    assert SECRET not in command
    # every node file in the tree has its metrics row, with the same numbers
    assert len(nodes) == len(metas) == nodes_computed
    for m in metas:
        assert nodes[m["id"]] == (f"L{m['level']}", m["input_tokens"], m["output_tokens"], m["backend"]), m["id"]
    finals = [m for m in metas if m.get("is_final")]
    for m in finals:
        assert files[m["doc_id"]] == (m["output_tokens"], m["summary_level"], m["content_type"], m["source_sha256"])
    assert out_tokens == sum(m["output_tokens"] for m in finals)

    # the report agrees, and still does after an incremental run that changed nothing
    for _ in range(2):
        data = report_json(out)
        summarized = sum(g["tokens_out"] for g in data["by_level"])
        assert summarized == sum(m["output_tokens"] for m in finals)
        assert data["totals"]["tokens_out"] == sum(m["output_tokens"] for m in finals)
        res = cli("run", str(corpus), "--out", str(out), "--no-index", "--quiet")
        assert res.exit_code in (0, 1)
    data = report_json(out, "--last", "3")
    assert len(data["trend"]) == 3 and data["trend"][-1]["files_changed"] == 0
    latest = report_json(out)["by_level"]
    for mine, theirs in zip(data["by_level"], latest, strict=True):
        assert mine["level"] == theirs["level"] and mine["tokens_out"] == theirs["tokens_out"]
        assert mine["ratio_mean"] == pytest.approx(theirs["ratio_mean"])


def test_latest_evaluation_is_reported(store: Store) -> None:
    ms = open_store(store.out)
    for eval_id, created, r1 in (("e-old", "2024-01-01T00:00:00Z", 0.1), ("e-new", "2024-02-01T00:00:00Z", 0.4)):
        ms.record_evals(
            [
                {
                    "eval_id": eval_id,
                    "created_at": created,
                    "dataset": "qmsum",
                    "method": "extractive",
                    "doc_id": f"d{i}",
                    "rouge1": r1 + i / 100,
                    "rouge2": 0.1,
                    "rougeLsum": 0.3,
                    "budget": 200,
                }
                for i in range(3)
            ]
        )
    data = report_json(store.out)
    assert data["eval_id"] == "e-new"
    (row,) = data["evals"]
    assert row["docs"] == 3 and row["rouge1"] == pytest.approx(0.41) and row["budget"] == "200"
    assert "Latest evaluation (e-new)" in cli("report", "--out", str(store.out)).stdout


def test_report_and_export_take_json_like_every_other_command(store: Store, tmp_path: Path) -> None:
    by_flag = json.loads(cli("report", "--out", str(store.out), "--json").stdout)
    by_format = report_json(store.out)
    # Same report either way (its timing fields aside).
    assert by_flag.keys() == by_format.keys()
    assert by_flag["runs"] == by_format["runs"] and by_flag["totals"]["files"] == by_format["totals"]["files"]
    res = cli("export", "--out", str(store.out), "--json", str(tmp_path / "exp"))
    assert res.exit_code == 0, res.output
    written = json.loads(res.stdout)
    assert written["format"] == "parquet"
    assert sorted(written["files"]) == ["evals", "files", "nodes", "runs"]
    assert all(Path(p).is_file() for p in written["files"].values())


def test_files_a_run_skipped_are_listed_with_their_reason(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "notes.md").write_text("We met at the harbour and agreed to repaint the pier before winter. " * 12)
    (src / "photo.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    out = tmp_path / "out"
    ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
    assert ran.exit_code == 1, ran.output
    data = json.loads(cli("report", "--out", str(out), "--json").stdout)
    assert [(f["relpath"], "binary" in f["error"]) for f in data["skipped"]] == [("photo.txt", True)]
    assert data["failures"] == []
    table = cli("report", "--out", str(out)).stdout
    assert "Skipped files (1)" in table and "photo.txt" in table.split("Skipped files (1)")[1]


def test_a_store_of_evaluations_only_reports_the_latest_evaluation(tmp_path: Path) -> None:
    docs, refs = eval_fixture(tmp_path)
    out = tmp_path / "eval-out"
    ran = cli("eval", str(docs), str(refs), "--out", str(out), "--budget", "ref", "--quiet")
    assert ran.exit_code == 0, ran.output
    res = cli("report", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "none yet: the store holds `batchsum eval` results only" in res.stdout
    latest = res.stdout.split("Latest evaluation (")[1]
    assert "batchsum" in latest and "ref" in latest
    data = report_json(out)
    assert data["runs"] == [] and data["trend"] == [] and data["periods"] == []
    assert {e["method"] for e in data["evals"]} == {"batchsum"} and data["evals"][0]["docs"] == 3
    html = tmp_path / "r.html"
    assert cli("report", "--out", str(out), "--html", str(html), "--format", "md").exit_code == 0
    assert "Latest evaluation" in html.read_text()
    # Without a run, a run cannot be chosen: a clear error, not an empty report.
    res = cli("report", "--out", str(out), "--run", "2024")
    assert res.exit_code == 2 and "holds no completed run yet" in res.stderr


def test_llm_tokens_and_cost_of_a_run_include_its_digests(tmp_path: Path) -> None:
    """The month and year digests an LLM writes are paid for like the files' summaries: the trend's LLM
    tokens (and the cost from them) are every token the run sent, digests' too, not its nodes' alone."""
    from tests.fakeserver import FakeLLMServer

    corpus, out = tmp_path / "journal", tmp_path / "out"
    corpus.mkdir()
    for day in range(1, 6):
        (corpus / f"2026-10-0{day}.md").write_text(
            f"Day {day}: we rowed out to buoy {day} at dawn and found its antenna bent by the gale. "
            f"Jonas fixed it with clamp {day * 3} and the readings came back before noon. " * 3,
            encoding="utf-8",
        )
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0", "--tpm", "0"]
        res = cli("run", str(corpus), "--out", str(out), "--no-index", "--json", *llm)
        assert res.exit_code == 0, res.output
        first = json.loads(res.stdout)["run"]
        (corpus / "2026-10-05.md").write_text("Day 5: rain all day; the boat stayed in.\n" * 12, encoding="utf-8")
        res = cli("run", str(corpus), "--out", str(out), "--no-index", "--json", *llm)
        assert res.exit_code == 0, res.output
        second = json.loads(res.stdout)["run"]
    assert first["llm_calls"] == 5 + 2 and second["llm_calls"] == 1 + 2  # the files', a month's and a year's
    data = report_json(out, "--last", "2", "--price-per-1k", "1")
    spent = [r["prompt_tokens"] + r["completion_tokens"] for r in (first, second)]
    assert [t["tokens_spent"] for t in data["trend"]] == spent
    assert data["cost"]["tokens_spent"] == sum(spent)


def test_price_per_million_prompt_and_completion_tokens_as_plan_takes_it(store: Store) -> None:
    """`report --price IN[,OUT]` means what `plan --price` means (per million tokens, prompt and completion
    apart); `--price-per-1k` stays one price per thousand tokens of either kind."""
    prompt = report_json(store.out, "--last", "2", "--price", "1000000,0")["cost"]
    completion = report_json(store.out, "--last", "2", "--price", "0,1000000")["cost"]
    assert prompt["tokens_spent"] == 681 and prompt["selected_runs"] + completion["selected_runs"] == 681
    assert 0 < prompt["selected_runs"] < 681  # both kinds were spent, each priced on its own
    same = report_json(store.out, "--last", "2", "--price", "2500")["cost"]
    assert same["selected_runs"] == pytest.approx(681 / 1000 * 2.5)  # = --price-per-1k 2.5
    assert "$2500/M prompt" in cli("report", "--out", str(store.out), "--last", "2", "--price", "2500").stdout
    plain = report_json(store.out, "--last", "2")["trend"][-1]
    assert set(plain) == set(report_json(store.out, "--last", "2", "--price", "1")["trend"][-1])  # one shape
    res = CliRunner().invoke(main, ["report", "--out", str(store.out), "--price", "1", "--price-per-1k", "1"])
    assert res.exit_code == 2 and "cannot be combined" in res.output
    bad = CliRunner().invoke(main, ["report", "--out", str(store.out), "--price", "cheap"])
    assert bad.exit_code == 2 and "per million tokens like 0.15,0.60" in bad.output


def test_a_hierarchical_targets_label_shows_the_folders_final_words(tmp_path: Path) -> None:
    """The label had said "≤500 words" whatever ``--final-words`` the folder was built with."""
    src = tmp_path / "src"
    src.mkdir()
    sentences = [f"On day {i} the crew of the harbour boat counted {i * 3} crates and mended nets." for i in range(200)]
    (src / "log.txt").write_text("\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, 200, 5)) + "\n")
    out = tmp_path / "out"
    labels = []
    for words in ("120", "0"):
        args = ["run", str(src), "--out", str(out), "--thresholds", "10,20,30,40", "--final-words", words]
        res = CliRunner().invoke(main, [*args, "--no-index", "-q", "--yes"])
        assert res.exit_code == 0, res.output
        report = json.loads(CliRunner().invoke(main, ["report", "--out", str(out), "--json"]).output)
        labels.append({g["target_label"] for g in report["by_level"] if g["level"] == "HIERARCHICAL"})
    assert labels == [{"≈4 %, ≤120 words"}, {"≈4 %, no word cap"}]
