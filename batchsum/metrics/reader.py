"""Read-only access to recorded metrics for reports and exports.

The source of truth for readers is the Parquet snapshots: each run's ``runs`` snapshot is
written last, so a run without one is still being recorded and is left out, and reading
Parquet never touches the DuckDB file lock. Only when no snapshot exists is the database
itself read (read-only; from a private copy when a writer holds its lock).

The returned connection is an in-memory DuckDB with ``runs``, ``files``, ``nodes`` and
``evals`` shaped like the current schema (columns an older snapshot lacks read as NULL),
holding completed runs only. Over Parquet, ``files`` and ``nodes`` are views (they can be
large; queries prune by run id); a database is copied into memory and let go at once.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from batchsum.errors import MetricsError
from batchsum.metrics.migrations import PARTITION_KEYS, TABLES, table_columns, user_tables
from batchsum.metrics.parquet import has_snapshots, snapshotted_keys, sql_literal, table_glob
from batchsum.metrics.store import (
    check_db_header,
    check_schema,
    connect_db,
    default_db_path,
    default_parquet_dir,
    is_lock_error,
    json_scan,
    names_folder,
    open_error,
    pending_run_id,
    pending_runs,
    read_pending,
)

log = logging.getLogger(__name__)


@dataclass
class MetricsSource:
    """An open in-memory DuckDB connection with the metrics views, and where they come from."""

    con: Any
    kind: str  # "parquet" | "database" | "database copy"
    location: Path
    _tmpdir: Path | None = field(default=None, repr=False)

    def describe(self) -> str:
        """One line for report headers."""
        return {
            "parquet": f"Parquet snapshots in {self.location}",
            "database": f"database {self.location} (read-only)",
            "database copy": f"copy of {self.location} (the file is locked by a running batchsum)",
        }[self.kind]

    def close(self) -> None:
        """Close the connection and remove any private database copy."""
        try:
            self.con.close()
        finally:
            if self._tmpdir is not None:
                shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> MetricsSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _projection(table: str, available: dict[str, str]) -> str:
    """SELECT list casting to the current schema; absent columns become typed NULLs."""
    cols = []
    for name, typ in table_columns(table):
        expr = f'"{name}"' if name in available else "NULL"
        cols.append(f'CAST({expr} AS {typ}) AS "{name}"')
    return ", ".join(cols)


def _load_tables(
    con: Any,
    sources: dict[str, str | None],
    *,
    views: tuple[str, ...] = (),
    pending: dict[str, str] | None = None,
) -> None:
    """Shape each source (None: empty) like the current schema, keeping completed runs only.

    ``runs`` and ``evals`` are loaded into memory; tables named in ``views`` stay views over
    their source, filtered by a literal list of run ids so DuckDB prunes whole Parquet files
    (hive partitions) and reads only the columns a query needs; the rest are loaded once.
    ``pending`` adds, per table, a typed scan of deferred runs not yet in the database.
    """
    pending = pending or {}
    for table in TABLES:  # runs first: the other filters are built from it
        parts: list[str] = []
        src = sources.get(table)
        if src is not None:
            # DESCRIBE reads only Parquet footers (or the catalog of an attached database).
            available = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()}
            parts.append(f"SELECT {_projection(table, available)} FROM {src}")
        if table in pending:
            parts.append(f"SELECT {_projection(table, dict(table_columns(table)))} FROM {pending[table]}")
        if not parts:
            cols = ", ".join(f'CAST(NULL AS {typ}) AS "{name}"' for name, typ in table_columns(table))
            con.execute(f"CREATE TABLE {table} AS SELECT {cols} WHERE false")
            continue
        if table == "runs":
            # A run still marked running was recorded mid-way by some tool: never report half a run.
            where = "WHERE status IS DISTINCT FROM 'running'"
        elif table == "evals":
            where = ""
        else:
            ids = [r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()]
            where = f"WHERE run_id IN ({', '.join(sql_literal(i) for i in ids) or 'NULL'})"
        kind = "VIEW" if table in views else "TABLE"
        union = " UNION ALL ".join(parts)
        con.execute(f"CREATE {kind} {table} AS SELECT * FROM ({union}) {where}")


def _pending_scans(parquet_dir: Path) -> dict[str, str]:
    """Typed scans of deferred runs that have no Parquet snapshot yet, per table that has rows."""
    done = snapshotted_keys(parquet_dir, "runs")
    # A run torn by a power cut is left out (the next recording run drops it).
    folders = [f for f in pending_runs(parquet_dir) if pending_run_id(f) not in done and read_pending(f) is not None]
    scans: dict[str, str] = {}
    for table in ("runs", "files", "nodes"):
        paths = [str(f / f"{table}.json") for f in folders if (f / f"{table}.json").is_file()]
        if paths:
            scans[table] = json_scan(table, paths)
    return scans


def _parquet_source(parquet_dir: Path) -> MetricsSource:
    import duckdb

    con = duckdb.connect()
    pending = _pending_scans(parquet_dir)
    sources: dict[str, str | None] = {}
    for table in TABLES:
        if has_snapshots(parquet_dir, table):
            key = PARTITION_KEYS[table]
            sources[table] = (
                f"read_parquet({sql_literal(table_glob(parquet_dir, table))}, hive_partitioning=1, "
                f"union_by_name=1, hive_types={{'{key}': 'VARCHAR'}})"
            )
    try:
        _load_tables(con, sources, views=("files", "nodes"), pending=pending)
    except duckdb.Error as exc:
        con.close()
        first = str(exc).splitlines()[0]
        raise MetricsError(f"cannot read Parquet snapshots in {parquet_dir}: {first}") from None
    return MetricsSource(con, "parquet", parquet_dir)


def _keep_folder_runs(con: Any, out: Path) -> None:
    """Drop the runs (and their files and nodes) of other output folders sharing the database."""
    rows = con.execute("SELECT run_id, out_dir FROM runs").fetchall()
    foreign = [run_id for run_id, out_dir in rows if not names_folder(out_dir, out)]
    if foreign:
        ids = ", ".join(sql_literal(i) for i in foreign)
        for table in ("files", "nodes", "runs"):
            con.execute(f"DELETE FROM {table} WHERE run_id IN ({ids})")


def _attach_source(
    db_path: Path, attach_path: Path, kind: str, tmpdir: Path | None, shared_by: Path | None = None
) -> MetricsSource:
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {sql_literal(str(attach_path))} AS src (READ_ONLY)")
        check_schema(con, db_path, "src")
        have = set(user_tables(con, "src"))
        _load_tables(con, {t: f"src.main.{t}" for t in TABLES if t in have})
        con.execute("DETACH src")  # everything is in memory now: let go of the file at once
        if shared_by is not None:
            _keep_folder_runs(con, shared_by)
    except duckdb.Error as exc:
        con.close()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
        raise open_error(exc, db_path) from None
    except BaseException:
        con.close()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return MetricsSource(con, kind, db_path, tmpdir)


def _database_source(db_path: Path, shared_by: Path | None) -> MetricsSource:
    check_db_header(db_path)
    try:
        probe = connect_db(db_path, read_only=True, lock_timeout=0.0)
    except MetricsError as exc:
        if "is locked" not in str(exc):
            raise
        return _copy_source(db_path, shared_by)
    probe.close()
    return _attach_source(db_path, db_path, "database", None, shared_by)


def _copy_source(db_path: Path, shared_by: Path | None) -> MetricsSource:
    # A writer holds the lock. Its last checkpoint in the main file (plus the WAL, replayed up
    # to the last complete commit) is a consistent state, so read a private copy of both.
    tmpdir = Path(tempfile.mkdtemp(prefix="batchsum-metrics-"))
    copy = tmpdir / db_path.name
    shutil.copyfile(db_path, copy)
    wal = db_path.with_name(db_path.name + ".wal")
    if wal.exists():
        try:
            shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        except OSError:
            pass  # checkpointed away meanwhile: the main file alone is consistent
    try:
        return _attach_source(db_path, copy, "database copy", tmpdir, shared_by)
    except MetricsError as exc:
        raise MetricsError(
            f"metrics database {db_path} is being written by another process and has no Parquet snapshots yet; "
            f"try again when it finishes ({exc})"
        ) from None


def open_metrics(out: Path, metrics_db: Path | None = None) -> MetricsSource:
    """Open the metrics of output folder ``out`` for reading (Parquet first, then the database)."""
    parquet_dir = default_parquet_dir(out)
    db_path = metrics_db or default_db_path(out)
    if has_snapshots(parquet_dir, "runs") or pending_runs(parquet_dir):
        try:
            return _parquet_source(parquet_dir)
        except MetricsError as exc:
            if not db_path.exists():
                raise
            # Damaged snapshots do not hide an intact database: read it instead.
            log.warning("%s; reading %s instead", exc, db_path)
    if db_path.exists():
        # A database outside the folder (--metrics-db) may hold other folders' runs: only this one's are read.
        own = db_path.resolve().parent == parquet_dir.resolve().parent
        return _database_source(db_path, None if own else out)
    raise MetricsError(
        f"no metrics found for {out}: neither {parquet_dir} nor {db_path} exists "
        f"(run `batchsum run <paths> --out {shlex.quote(str(out))}` first, or pass --metrics-db)"
    )


__all__ = ["MetricsSource", "is_lock_error", "open_metrics"]
