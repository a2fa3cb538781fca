"""The metrics store: real DuckDB files and Parquet snapshots in temp folders."""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from batchsum.errors import MetricsError
from batchsum.metrics import MetricsStore, open_store
from batchsum.metrics.migrations import MIGRATIONS, SCHEMA_VERSION, TABLES, table_columns
from batchsum.metrics.privacy import scrub_secrets
from batchsum.model import FileRecord, NodeRecord, RunRecord

SECRET = "sk-live-9f8e7d6c5b4a3210ffee"
BEARER = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.dG9rZW4"


def make_run(
    run_id: str,
    started_at: str,
    *,
    files: list[tuple[str, str, str, int, int]] | None = None,
    status: str = "ok",
    command: str = "batchsum run corpus --out out",
    llm: bool = False,
) -> tuple[RunRecord, list[FileRecord], list[NodeRecord]]:
    """A realistic run: ``files`` are (relpath, content_type, level, input_tokens, output_tokens)."""
    files = files or [
        ("journal/2024-01-01.md", "journal", "BRIEF", 300, 57),
        ("journal/2024-01-02.md", "journal", "STANDARD", 1200, 150),
        ("meetings/standup.txt", "conversation", "DETAILED", 9000, 700),
        ("docs/design.md", "document", "HIERARCHICAL", 40000, 1800),
        ("notes/tiny.md", "journal", "NONE", 40, 0),
    ]
    frecs: list[FileRecord] = []
    nrecs: list[NodeRecord] = []
    backend = "llm" if llm else "extractive"
    for rel, ctype, level, tin, tout in files:
        chunks = {"DETAILED": 3, "HIERARCHICAL": 14}.get(level, 0)
        file_nodes: list[NodeRecord] = []
        if level != "NONE":
            for i in range(1, chunks + 1):
                file_nodes.append(
                    NodeRecord(
                        run_id,
                        rel,
                        f"{rel}:summary:L1:{i}",
                        "L1",
                        i,
                        f"{rel}:summary:L3:final",
                        3000,
                        300,
                        0.1,
                        backend,
                        "m" if llm else None,
                        1,
                        12.5,
                        False,
                        prompt_tokens=3100 if llm else 0,
                        completion_tokens=300 if llm else 0,
                        llm_calls=1 if llm else 0,
                    )
                )
            file_nodes.append(
                NodeRecord(
                    run_id,
                    rel,
                    f"{rel}:summary:L3:final",
                    "L3",
                    None,
                    None,
                    tin,
                    tout,
                    tout / tin,
                    backend,
                    "m" if llm else None,
                    1,
                    20.0,
                    False,
                    prompt_tokens=tin + 100 if llm else 0,
                    completion_tokens=tout if llm else 0,
                    llm_calls=1 if llm else 0,
                )
            )
        nrecs += file_nodes
        frecs.append(
            FileRecord(
                run_id,
                rel,
                hashlib.sha256(rel.encode()).hexdigest(),
                tin * 4,
                ctype,
                level,
                tin,
                tout,
                tout / tin if level != "NONE" else 0.0,
                chunks,
                len(file_nodes),
                sum(n.llm_calls for n in file_nodes),
                sum(n.prompt_tokens for n in file_nodes),
                sum(n.completion_tokens for n in file_nodes),
                35.0,
                "done",
            )
        )
    run = RunRecord(
        run_id=run_id,
        started_at=started_at,
        finished_at=started_at.replace("00Z", "59Z"),
        command=command,
        backend=backend,
        model="m" if llm else None,
        status=status,
        out_dir="out",
        files_total=len(frecs),
        files_done=len(frecs),
        input_tokens=sum(f.input_tokens for f in frecs),
        output_tokens=sum(f.output_tokens for f in frecs),
        llm_calls=sum(n.llm_calls for n in nrecs),
        prompt_tokens=sum(n.prompt_tokens for n in nrecs),
        completion_tokens=sum(n.completion_tokens for n in nrecs),
        nodes_computed=len(nrecs),
        wall_ms=1234.5,
    )
    return run, frecs, nrecs


def db_rows(db: Path, table: str, order: str) -> list[dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(f"SELECT * FROM {table} ORDER BY {order}")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    return tmp_path / "out"


def test_records_round_trip_every_field(out: Path) -> None:
    store = open_store(out)
    run, files, nodes = make_run("20240101T000000Z-aaaaaa", "2024-01-01T00:00:00Z")
    files.append(
        FileRecord(
            run.run_id,
            '日記/été 2024 "quoted".md',
            None,
            7,
            None,
            None,
            0,
            0,
            0.0,
            0,
            0,
            0,
            0,
            0,
            0.5,
            "failed",
            error='line one\nline two: "bad" \\ byte',
        )
    )
    store.record_run(run, files, nodes)
    db = out / ".batchsum" / "metrics.duckdb"
    (stored_run,) = db_rows(db, "runs", "run_id")
    assert stored_run.pop("recorded_at").startswith("20")  # the store's own tie-break column
    assert stored_run == dataclasses.asdict(run)
    assert db_rows(db, "files", "relpath") == sorted((dataclasses.asdict(f) for f in files), key=lambda r: r["relpath"])
    got = db_rows(db, "nodes", "node_id")
    assert got == sorted((dataclasses.asdict(n) for n in nodes), key=lambda r: r["node_id"])
    assert store.schema_version() == SCHEMA_VERSION


def test_every_record_field_has_a_column_after_migrations(out: Path) -> None:
    store = open_store(out)
    store.record_run(*make_run("r1", "2024-01-01T00:00:00Z"))
    con = duckdb.connect(str(store.db_path), read_only=True)
    try:
        for table in TABLES:
            # migrations append columns, so compare names and types, not positions
            described = {r[0]: r[1] for r in con.execute(f"DESCRIBE {table}").fetchall()}
            assert described == dict(table_columns(table)), table
    finally:
        con.close()
    for table, cls in (("runs", RunRecord), ("files", FileRecord), ("nodes", NodeRecord)):
        extra = ["recorded_at"] if table == "runs" else []
        assert [c for c, _ in table_columns(table)] == [f.name for f in dataclasses.fields(cls)] + extra


def test_parquet_snapshots_hive_zstd_read_by_pyarrow_and_duckdb(out: Path) -> None:
    store = open_store(out)
    runs = [make_run(f"2024010{i}T000000Z-r{i}", f"2024-01-0{i}T00:00:00Z") for i in (1, 2)]
    for r in runs:
        store.record_run(*r)
    pdir = out / ".batchsum" / "parquet"
    for table in ("runs", "files", "nodes"):
        for run, _, _ in runs:
            part = pdir / table / f"run_id={run.run_id}" / "part-0.parquet"
            assert part.is_file()
            meta = pq.ParquetFile(part).metadata
            assert meta.row_group(0).column(0).compression == "ZSTD"
            # the partition column lives in the path only (standard hive layout)
            assert "run_id" not in pq.ParquetFile(part).schema_arrow.names
    assert not list(pdir.rglob("*.tmp"))

    all_nodes = [dataclasses.asdict(n) for _, _, ns in runs for n in ns]

    # pyarrow, run_id rebuilt from the hive folder names
    rows = pq.read_table(pdir / "nodes", partitioning="hive").to_pylist()
    key = lambda r: (r["run_id"], r["node_id"])  # noqa: E731
    assert sorted(rows, key=key) == sorted(all_nodes, key=key)

    # DuckDB: one glob over the whole history
    con = duckdb.connect()
    got = con.execute(
        f"SELECT run_id, count(*), sum(output_tokens) FROM read_parquet('{pdir}/files/*/*.parquet', "
        "hive_partitioning=1) GROUP BY run_id ORDER BY run_id"
    ).fetchall()
    assert got == [(r.run_id, len(fs), sum(f.output_tokens for f in fs)) for r, fs, _ in runs]
    runs_rows = con.execute(
        f"SELECT run_id, status, command FROM read_parquet('{pdir}/runs/*/*.parquet', hive_partitioning=1) ORDER BY 1"
    ).fetchall()
    assert runs_rows == [(r.run_id, r.status, r.command) for r, _, _ in runs]


def test_rerecording_a_run_replaces_it(out: Path) -> None:
    store = open_store(out)
    run, files, nodes = make_run("r1", "2024-01-01T00:00:00Z")
    store.record_run(run, files, nodes)
    run.status = "partial"
    store.record_run(run, files[:2], nodes[:1])
    db = store.db_path
    assert [r["status"] for r in db_rows(db, "runs", "run_id")] == ["partial"]
    assert len(db_rows(db, "files", "relpath")) == 2
    assert len(db_rows(db, "nodes", "node_id")) == 1
    parts = pq.read_table(out / ".batchsum" / "parquet" / "files" / "run_id=r1" / "part-0.parquet")
    assert parts.num_rows == 2


def test_run_id_with_unsafe_characters_round_trips_through_hive_paths(out: Path) -> None:
    store = open_store(out)
    run_id = "2024-01-01T00:00:00+00:00 run/1"
    store.record_run(*make_run(run_id, "2024-01-01T00:00:00Z"))
    pdir = out / ".batchsum" / "parquet"
    dirs = [p.name for p in (pdir / "runs").iterdir()]
    assert len(dirs) == 1 and "/" not in dirs[0] and " " not in dirs[0]
    got = duckdb.sql(
        f"SELECT DISTINCT run_id FROM read_parquet('{pdir}/files/*/*.parquet', hive_partitioning=1)"
    ).fetchall()
    assert got == [(run_id,)]


V1_DDL = """
CREATE TABLE runs (
    run_id VARCHAR NOT NULL, started_at VARCHAR, finished_at VARCHAR, command VARCHAR,
    backend VARCHAR, model VARCHAR, status VARCHAR, out_dir VARCHAR,
    files_total BIGINT, files_done BIGINT, files_failed BIGINT,
    input_tokens BIGINT, output_tokens BIGINT, llm_calls BIGINT, wall_ms DOUBLE
);
CREATE TABLE files (
    run_id VARCHAR NOT NULL, relpath VARCHAR NOT NULL, sha256 VARCHAR, bytes BIGINT,
    content_type VARCHAR, level VARCHAR, input_tokens BIGINT, output_tokens BIGINT,
    compression_ratio DOUBLE, chunks BIGINT, nodes BIGINT, llm_calls BIGINT,
    prompt_tokens BIGINT, completion_tokens BIGINT, wall_ms DOUBLE, status VARCHAR, error VARCHAR
);
CREATE TABLE nodes (
    run_id VARCHAR NOT NULL, relpath VARCHAR NOT NULL, node_id VARCHAR NOT NULL, level VARCHAR,
    "index" BIGINT, parent VARCHAR, input_tokens BIGINT, output_tokens BIGINT, compression_ratio DOUBLE,
    backend VARCHAR, model VARCHAR, attempts BIGINT, latency_ms DOUBLE, cache_hit BOOLEAN
);
CREATE TABLE _batchsum_migrations (name VARCHAR NOT NULL, applied_at VARCHAR);
INSERT INTO _batchsum_migrations VALUES ('m001_initial', '2024-01-01T00:00:00+00:00');
INSERT INTO runs VALUES ('old-run', '2023-12-31T00:00:00Z', '2023-12-31T00:05:00Z', 'batchsum run x', 'extractive',
    NULL, 'ok', 'out', 1, 1, 0, 500, 60, 0, 300000.0);
INSERT INTO files VALUES ('old-run', 'a.md', 'abc', 2000, 'journal', 'STANDARD', 500, 60, 0.12, 0, 1, 0, 0, 0, 40.0,
    'done', NULL);
INSERT INTO nodes VALUES ('old-run', 'a.md', 'a.md:summary:L3:final', 'L3', NULL, NULL, 500, 60, 0.12, 'extractive',
    NULL, 1, 40.0, false);
"""


def make_v1_db(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    con.execute(V1_DDL)
    con.close()


def test_v1_database_is_migrated_and_keeps_its_rows(out: Path) -> None:
    db = out / ".batchsum" / "metrics.duckdb"
    make_v1_db(db)
    store = open_store(out)
    assert store.schema_version() == 1
    store.record_run(*make_run("new-run", "2024-01-01T00:00:00Z"))
    assert store.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
    runs = {r["run_id"]: r for r in db_rows(db, "runs", "run_id")}
    assert set(runs) == {"old-run", "new-run"}
    old = runs["old-run"]
    assert old["input_tokens"] == 500 and old["files_unchanged"] == 0 and old["nodes_reused"] == 0
    old_nodes = [n for n in db_rows(db, "nodes", "node_id") if n["run_id"] == "old-run"]
    assert old_nodes[0]["reused"] is False and old_nodes[0]["error"] is None and old_nodes[0]["llm_calls"] == 0
    # rows recorded before the Parquet snapshots existed get snapshotted too
    assert (out / ".batchsum" / "parquet" / "runs" / "run_id=old-run" / "part-0.parquet").is_file()
    assert (out / ".batchsum" / "parquet" / "files" / "run_id=old-run" / "part-0.parquet").is_file()


def test_corrupt_database_is_refused_and_left_untouched(out: Path) -> None:
    db = out / ".batchsum" / "metrics.duckdb"
    db.parent.mkdir(parents=True)
    garbage = bytes(range(256)) * 64
    db.write_bytes(garbage)
    with pytest.raises(MetricsError) as err:
        open_store(out)
    assert str(err.value) == f"metrics database is not a DuckDB database or is corrupt: {db}"
    assert db.read_bytes() == garbage
    # a header that looks right but a body that is not
    fake = garbage[:8] + b"DUCK" + garbage[12:]
    db.write_bytes(fake)
    with pytest.raises(MetricsError, match="is not a DuckDB database or is corrupt"):
        MetricsStore(db, out / "p").record_run(*make_run("r", "2024-01-01T00:00:00Z"))
    assert db.read_bytes() == fake
    assert sorted(p.name for p in db.parent.iterdir()) == ["metrics.duckdb"]


def test_newer_schema_is_refused_and_left_untouched(out: Path) -> None:
    store = open_store(out)
    store.record_run(*make_run("r1", "2024-01-01T00:00:00Z"))
    con = duckdb.connect(str(store.db_path))
    con.execute("INSERT INTO _batchsum_migrations VALUES ('m099_from_the_future', '2099-01-01T00:00:00+00:00')")
    con.close()
    before = file_digest(store.db_path)
    with pytest.raises(MetricsError) as err:
        open_store(out)
    msg = str(err.value)
    assert f"{store.db_path} was written by a newer batchsum (schema v{SCHEMA_VERSION + 1})" in msg
    # the store object created before the upgrade also refuses to write
    with pytest.raises(MetricsError, match="newer batchsum"):
        store.record_run(*make_run("r2", "2024-01-02T00:00:00Z"))
    assert file_digest(store.db_path) == before
    assert not store.db_path.with_name("metrics.duckdb.wal").exists()


def test_foreign_duckdb_file_is_not_adopted(out: Path) -> None:
    db = out / "other.duckdb"
    out.mkdir()
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE customers (id INTEGER)")
    con.close()
    before = file_digest(db)
    with pytest.raises(MetricsError, match="not a batchsum metrics store"):
        MetricsStore(db, out / "p").record_run(*make_run("r", "2024-01-01T00:00:00Z"))
    assert file_digest(db) == before


def test_record_evals_and_snapshot(out: Path) -> None:
    store = open_store(out)
    rows = [
        {
            "eval_id": "e1",
            "created_at": "2024-02-01T00:00:00Z",
            "dataset": "qmsum",
            "method": m,
            "doc_id": d,
            "rouge1": 0.4,
            "rouge2": 0.1,
            "rougeLsum": 0.35,
            "entity_recall": 0.5,
            "number_recall": 0.6,
            "compression_ratio": 0.05,
            "seconds": 1.5,
            "budget": 256,
        }
        for m in ("extractive", "lead")
        for d in ("d1", "d2")
    ]
    store.record_evals(rows)
    got = db_rows(store.db_path, "evals", "method, doc_id")
    assert len(got) == 4 and got[0]["budget"] == "256" and got[0]["rougeLsum"] == 0.35
    part = out / ".batchsum" / "parquet" / "evals" / "eval_id=e1" / "part-0.parquet"
    assert pq.read_table(part).num_rows == 4
    with pytest.raises(MetricsError, match="unknown column"):
        store.record_evals([{"eval_id": "e2", "rouge_99": 1.0}])


def test_write_waits_for_lock_then_reports_it(out: Path, tmp_path: Path) -> None:
    store = open_store(out)
    store.record_run(*make_run("r1", "2024-01-01T00:00:00Z"))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import duckdb, sys
            con = duckdb.connect({str(store.db_path)!r})
            print("locked", flush=True)
            sys.stdin.read()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        blocked = MetricsStore(store.db_path, store.parquet_dir, lock_timeout=0.3)
        with pytest.raises(MetricsError, match="is locked by another process"):
            blocked.record_run(*make_run("r2", "2024-01-02T00:00:00Z"))
    finally:
        holder.communicate("")
    assert not (store.parquet_dir / "runs" / "run_id=r2").exists()


def test_secrets_are_scrubbed_before_storage(out: Path) -> None:
    store = open_store(out)
    run, files, nodes = make_run(
        "r1", "2024-01-01T00:00:00Z", command=f"batchsum run c --api-key {SECRET} --base-url http://127.0.0.1:9/v1"
    )
    files[1].status = "failed"
    files[1].error = f"HTTP 401 from server; request headers Authorization: Bearer {BEARER}"
    nodes[0].error = f"retry failed: api_key={SECRET}"
    store.record_run(run, files, nodes)
    con = duckdb.connect(str(store.db_path), read_only=True)
    for table in ("runs", "files", "nodes"):
        text = str(con.execute(f"SELECT * FROM {table}").fetchall())
        assert SECRET not in text and BEARER not in text, table
    con.close()
    for part in (out / ".batchsum" / "parquet").rglob("*.parquet"):
        text = str(pq.read_table(part).to_pylist())
        assert SECRET not in text and BEARER not in text
    stored = db_rows(store.db_path, "runs", "run_id")[0]["command"]
    assert stored == "batchsum run c --api-key *** --base-url http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("raw", "leak"),
    [
        ("batchsum run --api-key=abc123secret x", "abc123secret"),
        ("curl -H 'Authorization: Basic dXNlcjpwYXNz' url", "dXNlcjpwYXNz"),
        ('{"authorization": "Bearer tok_123456"}', "tok_123456"),
        ("OPENAI_API_KEY=sk-proj-abcdefgh batchsum run", "abcdefgh"),
        ("key is sk-ABCDEF0123456789", "ABCDEF0123456789"),
        ("bearer xyz.987", "xyz.987"),
    ],
)
def test_scrub_secrets_patterns(raw: str, leak: str) -> None:
    scrubbed = scrub_secrets(raw)
    assert leak not in scrubbed and "***" in scrubbed
