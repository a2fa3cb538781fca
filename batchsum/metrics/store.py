"""The metrics store: a DuckDB file (system of record) plus per-run Parquet snapshots.

A run holds no connection while it works: :meth:`MetricsStore.record_run` opens the
database, writes one run in one short transaction, snapshots it to Parquet and closes.
Reports read the snapshots (see :mod:`batchsum.metrics.reader`), so they never wait for,
or see half of, a run being recorded.

Every run's rows are first written as JSON arrays under ``.batchsum/metrics-pending/<run_id>/``
(:func:`write_pending`, a few milliseconds). A run that changed something then folds every pending
run into the database and snapshots it (:meth:`MetricsStore.record_run`); a run that changed
nothing is not worth a DuckDB start (:func:`defer_run`): its rows wait, readers include them, and
the next recording run folds them in. ``runs.json`` is written last and marks a pending run complete.
Pending files are not fsynced (they describe a run that changed nothing, and two fsyncs were ~5 %
of such a run): a power cut can tear them, so readers and the fold skip a run whose files
do not parse, and the fold drops it.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from batchsum import jsonio
from batchsum.config import STATE_DIR
from batchsum.errors import MetricsError
from batchsum.metrics.migrations import (
    MIGRATIONS_TABLE,
    PARTITION_KEYS,
    SCHEMA_VERSION,
    applied_migrations,
    migrate,
    table_columns,
    unknown_migrations,
    user_tables,
)
from batchsum.metrics.parquet import snapshotted_keys, write_snapshot
from batchsum.metrics.privacy import scrub_secrets
from batchsum.model import FileRecord, NodeRecord, RunRecord
from batchsum.tree import atomic_target

log = logging.getLogger(__name__)

DB_NAME = "metrics.duckdb"
PARQUET_DIR = "parquet"
PENDING_DIR = "metrics-pending"
PENDING_RUNS_FILE = "runs.json"
# Past this many deferred runs the next quiet run records normally, so the database never lags far.
MAX_PENDING_RUNS = 30

# Identity columns are kept verbatim (scrubbing a path would break joins); every other
# string column is free text that may carry a pasted key or header.
_VERBATIM = frozenset(
    {
        "run_id",
        "relpath",
        "node_id",
        "parent",
        "sha256",
        "content_type",
        "language",
        "level",
        "status",
        "eval_id",
        "doc_id",
    }
)


def default_db_path(out: Path) -> Path:
    """``<out>/.batchsum/metrics.duckdb``."""
    return Path(out) / STATE_DIR / DB_NAME


def default_parquet_dir(out: Path) -> Path:
    """``<out>/.batchsum/parquet``."""
    return Path(out) / STATE_DIR / PARQUET_DIR


def names_folder(out_dir: str | None, out: Path) -> bool:
    """Whether a run row's ``out_dir`` is output folder ``out``. Runs record it absolute; a relative one
    (rows recorded before that, as ``--out`` was given) is read from the current directory."""
    if not out_dir:
        return False  # recorded before out_dir was: whose it was is unknown
    try:
        return Path(out_dir).resolve() == Path(out).resolve()
    except (OSError, RuntimeError):
        return False


def is_lock_error(exc: BaseException) -> bool:
    """True when DuckDB refused a file because another process holds its lock."""
    text = str(exc)
    return "Could not set lock" in text or "Conflicting lock" in text


def check_db_header(path: Path) -> None:
    """Refuse files that are not DuckDB databases before DuckDB ever opens them."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise MetricsError(f"cannot read metrics database {path}: {exc.strerror or exc}") from exc
    if len(head) < 12 or head[8:12] != b"DUCK":
        raise MetricsError(f"metrics database is not a DuckDB database or is corrupt: {path}")


def check_schema(con: Any, path: Path, catalog: str | None = None) -> int:
    """Return the schema version of an open (or attached) database; raise if it is newer or not ours."""
    applied = applied_migrations(con, catalog)
    if not applied:
        others = [t for t in user_tables(con, catalog) if t != MIGRATIONS_TABLE]
        if others:
            raise MetricsError(
                f"{path} is a DuckDB database but not a batchsum metrics store (tables: {', '.join(others[:5])}); "
                "pass --metrics-db to use another file"
            )
        return 0
    if unknown_migrations(applied) or len(applied) > SCHEMA_VERSION:
        raise MetricsError(
            f"metrics database {path} was written by a newer batchsum (schema v{len(applied)}); this batchsum "
            f"understands up to schema v{SCHEMA_VERSION} - upgrade batchsum or pass --metrics-db to use another file"
        )
    return len(applied)


def open_error(exc: BaseException, path: Path) -> MetricsError:
    """Translate a DuckDB open failure into a one-line MetricsError."""
    text = str(exc)
    lowered = text.lower()
    if any(s in lowered for s in ("not a valid duckdb database", "corrupt", "checksum", "serialization")):
        return MetricsError(f"metrics database is not a DuckDB database or is corrupt: {path}")
    first = text.splitlines()[0] if text else type(exc).__name__
    return MetricsError(f"cannot open metrics database {path}: {first}")


def connect_db(path: Path, *, read_only: bool, lock_timeout: float) -> Any:
    """Open ``path`` with DuckDB, retrying while another process holds the lock."""
    import duckdb

    if path.exists():
        check_db_header(path)
    deadline = time.monotonic() + lock_timeout
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as exc:
            if not is_lock_error(exc):
                raise open_error(exc, path) from None
            if time.monotonic() >= deadline:
                raise MetricsError(
                    f"metrics database {path} is locked by another process (waited {lock_timeout:.0f}s)"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


_FREE_TEXT: dict[type, tuple[str, ...]] = {}


def record_row(record: Any) -> dict[str, Any]:
    """A record dataclass as a column -> value dict, free-text fields scrubbed of secrets."""
    cls = type(record)
    free = _FREE_TEXT.get(cls)
    if free is None:
        free = _FREE_TEXT[cls] = tuple(f.name for f in dataclasses.fields(record) if f.name not in _VERBATIM)
    # Records hold flat values only, so the instance dict is the row (thousands of rows per run);
    # it is copied only when a free-text column needs scrubbing. Callers must not modify it.
    row: dict[str, Any] = record.__dict__
    for name in free:
        value = row[name]
        if value.__class__ is str:
            scrubbed = scrub_secrets(value)
            if scrubbed != value:
                if row is record.__dict__:
                    row = dict(row)
                row[name] = scrubbed
    return row


def clean_eval_row(raw: dict[str, Any]) -> dict[str, Any]:
    """Validate one eval row against the ``evals`` columns and scrub its free text."""
    names = [name for name, _ in table_columns("evals")]
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise MetricsError(f"eval row has unknown column(s): {', '.join(unknown)}")
    if not raw.get("eval_id"):
        raise MetricsError("eval row has no eval_id")
    row = {name: raw.get(name) for name in names}
    if row["created_at"] is None:
        row["created_at"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    if row["budget"] is not None:
        row["budget"] = str(row["budget"])
    for name, value in row.items():
        if isinstance(value, str) and name not in _VERBATIM:
            row[name] = scrub_secrets(value)
    return row


def write_json_rows(fh: Any, table: str, rows: list[dict[str, Any]]) -> None:
    """Write ``rows`` as one JSON array of objects holding exactly ``table``'s columns."""
    names = [name for name, _ in table_columns(table)]
    width = len(names)
    if not all(len(row) == width for row in rows):
        rows = [{name: row.get(name) for name in names} for row in rows]
    # One encoder call for all rows; a non-finite ratio is written as null (unknown).
    fh.write(jsonio.dumps(rows))


def json_scan(table: str, paths: list[str]) -> str:
    """A typed ``read_json`` over files written by :func:`write_json_rows` (paths are SQL-quoted)."""
    spec = ", ".join(f"'{name}': '{typ}'" for name, typ in table_columns(table))
    files = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
    return f"read_json([{files}], format = 'array', columns = {{{spec}}})"


def insert_rows(con: Any, table: str, rows: list[dict[str, Any]]) -> None:
    """Bulk-insert ``rows`` through a JSON file read by DuckDB.

    ``executemany`` costs ~1 ms a row; a typed ``read_json`` scan loads thousands of rows in a
    few milliseconds without importing pyarrow.
    """
    if not rows:
        return
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f"batchsum-{table}-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as fh:
            write_json_rows(fh, table, rows)
        cols = ", ".join(f'"{name}"' for name, _ in table_columns(table))
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {json_scan(table, [tmp])}")
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def pending_dir(parquet_dir: Path) -> Path:
    """Where deferred runs wait for the database: beside the Parquet snapshots."""
    return Path(parquet_dir).parent / PENDING_DIR


def pending_runs(parquet_dir: Path) -> list[Path]:
    """Folders of complete deferred runs, oldest first."""
    base = pending_dir(parquet_dir)
    try:
        dirs = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(d.path) for d in dirs if os.path.isfile(os.path.join(d.path, PENDING_RUNS_FILE))]


def pending_run_id(folder: Path) -> str:
    """The run id of a pending run's folder."""
    from urllib.parse import unquote

    return unquote(folder.name)


def read_pending(folder: Path) -> dict[str, list[dict[str, Any]]] | None:
    """The rows of one deferred run per table, or None when a power cut tore one of its files."""
    rows: dict[str, list[dict[str, Any]]] = {}
    try:
        for table in ("files", "nodes", "runs"):
            path = folder / f"{table}.json"
            data = jsonio.loads(path.read_bytes()) if table == "runs" or path.is_file() else []
            if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
                return None
            rows[table] = data
    except (OSError, ValueError):
        return None
    return rows if len(rows["runs"]) == 1 else None


def _run_rows(run: RunRecord, files: list[FileRecord], nodes: list[NodeRecord]) -> dict[str, list[dict[str, Any]]]:
    recs: list[FileRecord | NodeRecord] = [*files, *nodes]
    for rec in recs:
        if rec.run_id != run.run_id:
            raise MetricsError(f"record for {rec.relpath} has run id {rec.run_id!r}, expected {run.run_id!r}")
    run_row = dict(record_row(run))
    run_row["recorded_at"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")
    return {
        "runs": [run_row],
        "files": [record_row(f) for f in files],
        "nodes": [record_row(n) for n in nodes],
    }


def defer_run(parquet_dir: Path, run: RunRecord, files: list[FileRecord], nodes: list[NodeRecord]) -> bool:
    """Record a run as pending JSON without opening DuckDB; False when too many already wait
    (then record it with :meth:`MetricsStore.record_run`, which folds them all in)."""
    if len(pending_runs(parquet_dir)) >= MAX_PENDING_RUNS:
        return False
    write_pending(parquet_dir, run, files, nodes)
    return True


def write_pending(parquet_dir: Path, run: RunRecord, files: list[FileRecord], nodes: list[NodeRecord]) -> None:
    """Write one run's rows as a pending run: the one way every run's metrics are written."""
    from urllib.parse import quote

    rows = _run_rows(run, files, nodes)
    # Escaped like the Parquet partitions: a run id is any string the API was given.
    folder = pending_dir(parquet_dir) / quote(run.run_id, safe="-_.")
    folder.mkdir(parents=True, exist_ok=True)
    for table in ("files", "nodes", "runs"):  # runs last: it marks the run complete
        if not rows[table]:
            continue
        with atomic_target(folder / f"{table}.json") as tmp, open(tmp, "wb") as fh:
            write_json_rows(fh, table, rows[table])


class MetricsStore:
    """Writes runs, files, nodes and eval rows to DuckDB and Parquet snapshots."""

    def __init__(self, db_path: Path, parquet_dir: Path, *, lock_timeout: float = 60.0) -> None:
        """Point at the database and snapshot folder; an existing database is checked now
        (read-only) so a newer or corrupt file fails before a long run, not after it."""
        self.db_path = Path(db_path)
        self.parquet_dir = Path(parquet_dir)
        self.lock_timeout = lock_timeout
        self._schema_checked = False
        self._checked_stat: tuple[int, int, int] | None = None  # file identity when last found usable
        if self.db_path.exists():
            try:
                con = connect_db(self.db_path, read_only=True, lock_timeout=min(lock_timeout, 2.0))
            except MetricsError as exc:
                if "is locked" not in str(exc):
                    raise
                return  # another process is writing; record_run checks once it gets the lock
            try:
                check_schema(con, self.db_path)
            finally:
                con.close()
            self._checked_stat = self._stat()

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.db_path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A short-lived write connection on a checked, migrated database."""
        if self.db_path.exists():
            # Check read-only first: a newer-schema file must not even be opened for writing
            # (skipped when this very file was checked and has not changed since).
            if self._checked_stat is None or self._stat() != self._checked_stat:
                ro = connect_db(self.db_path, read_only=True, lock_timeout=self.lock_timeout)
                try:
                    check_schema(ro, self.db_path)
                finally:
                    ro.close()
        else:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
        con = connect_db(self.db_path, read_only=False, lock_timeout=self.lock_timeout)
        try:
            check_schema(con, self.db_path)
            migrate(con)
            if not self._schema_checked:
                self._check_columns(con)
                self._schema_checked = True
            yield con
        finally:
            con.close()
            self._checked_stat = self._stat()

    def _check_columns(self, con: Any) -> None:
        """Every record field needs a column: a field added without a migration is a bug."""
        for table in PARTITION_KEYS:
            have = {r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()}
            missing = [name for name, _ in table_columns(table) if name not in have]
            if missing:
                raise MetricsError(
                    f"metrics table {table} lacks column(s) {', '.join(missing)}: a schema migration is missing"
                )

    def schema_version(self) -> int:
        """Schema version of the database file (0 when it does not exist yet)."""
        if not self.db_path.exists():
            return 0
        con = connect_db(self.db_path, read_only=True, lock_timeout=self.lock_timeout)
        try:
            return len(applied_migrations(con))
        finally:
            con.close()

    def record_run(self, run: RunRecord, files: list[FileRecord], nodes: list[NodeRecord]) -> None:
        """Store one run (replacing an earlier recording of the same run id) and snapshot it.

        Its rows take the path of every run's: written as a pending run, then folded into the
        database with any deferred runs waiting beside it. So the rows are on disk before DuckDB is
        touched (a crash while writing the database loses nothing), and the database is written one
        way only. Nothing is written when the database refuses the connection."""
        with self._connection() as con:
            write_pending(self.parquet_dir, run, files, nodes)
            self._fold_pending(con)
            self._repair_snapshots(con)

    def has_run(self, run_id: str) -> bool:
        """Whether the database already holds this run."""
        if not self.db_path.exists():
            return False
        with self._connection() as con:
            row = con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()
        return bool(row and row[0])

    def _snapshot_run(self, con: Any, run_id: str) -> None:
        """Parquet snapshots of one run: files and nodes first, since a reader only trusts runs
        whose ``runs`` snapshot exists."""

        for table in ("files", "nodes", "runs"):
            write_snapshot(con, self.parquet_dir, table, run_id)

    def _fold_pending(self, con: Any) -> None:
        """Move deferred runs into the database and their Parquet snapshots, then drop them."""
        import shutil

        for folder in pending_runs(self.parquet_dir):
            rows = read_pending(folder)
            run_id = pending_run_id(folder)
            if rows is None:
                log.warning("metrics of run %s were torn by a crash before reaching disk; dropped", run_id)
            else:
                self._replace(con, "run_id", run_id, rows)
                self._snapshot_run(con, run_id)
            # Removed only once snapshotted; readers skip a pending run that has a snapshot.
            shutil.rmtree(folder, ignore_errors=True)

    def record_evals(self, rows: list[dict[str, Any]]) -> None:
        """Append evaluation rows (one per document and method) and re-snapshot each eval id they touch.

        Keys must be ``evals`` columns (unknown keys raise MetricsError); missing ones are NULL,
        ``created_at`` defaults to now and ``budget`` is stored as text.
        """

        if not rows:
            return
        clean = [clean_eval_row(r) for r in rows]
        by_id: dict[str, list[dict[str, Any]]] = {}
        for row in clean:
            by_id.setdefault(row["eval_id"], []).append(row)
        with self._connection() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                insert_rows(con, "evals", clean)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            for eval_id in by_id:
                write_snapshot(con, self.parquet_dir, "evals", eval_id)

    def _replace(self, con: Any, key: str, value: str, rows: dict[str, list[dict[str, Any]]]) -> None:
        """Delete then insert every table's rows for one partition value, atomically."""
        con.execute("BEGIN TRANSACTION")
        try:
            for table, table_rows in rows.items():
                con.execute(f'DELETE FROM {table} WHERE "{key}" = ?', [value])
                insert_rows(con, table, table_rows)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _own_runs(self, con: Any) -> set[str]:
        """The runs of the database that are this output folder's.

        A database beside the snapshots (``<out>/.batchsum``) is the folder's own: every run in it is
        the folder's, wherever the folder was when it ran. A database elsewhere (``--metrics-db``) may
        be shared by several folders: only the runs that name this folder as their ``out_dir`` are."""
        rows = con.execute("SELECT run_id, out_dir FROM runs").fetchall()
        if self.db_path.resolve().parent == self.parquet_dir.resolve().parent:
            return {run_id for run_id, _ in rows}
        out = self.parquet_dir.parent.parent  # <out>/.batchsum/parquet
        return {run_id for run_id, out_dir in rows if names_folder(out_dir, out)}

    def _repair_snapshots(self, con: Any) -> None:
        """Snapshot runs and evals that are in the database but have no Parquet yet
        (an earlier snapshot failed, the folder was removed, or the data predates it)."""

        for table in ("runs", "evals"):
            key = PARTITION_KEYS[table]
            if table == "runs":
                in_db = self._own_runs(con)
            else:
                in_db = {r[0] for r in con.execute(f'SELECT DISTINCT "{key}" FROM {table}').fetchall()}
            missing = in_db - snapshotted_keys(self.parquet_dir, table)
            for value in sorted(missing):
                if table == "runs":
                    self._snapshot_run(con, value)
                else:
                    write_snapshot(con, self.parquet_dir, table, value)


def open_store(out: Path, db_path: Path | None = None) -> MetricsStore:
    """The metrics store of output folder ``out`` (database moved by ``db_path`` if given)."""
    return MetricsStore(db_path or default_db_path(out), default_parquet_dir(out))
