"""Versioned schema of the metrics database (modelled on simonw/llm's ``migrations.py``).

Each migration is a function registered in order with ``@migration``; the names applied to a
database are kept in ``_batchsum_migrations``, so the schema version is the number of them.
A migration, once released, never changes: schema changes always go into a new one.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from typing import Any

from batchsum.model import FileRecord, NodeRecord, RunRecord

Migration = Callable[[Any], None]  # receives a duckdb connection

MIGRATIONS: list[Migration] = []
MIGRATIONS_TABLE = "_batchsum_migrations"


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration."""
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(con: Any) -> None:
    con.execute(
        """
        CREATE TABLE runs (
            run_id VARCHAR NOT NULL, started_at VARCHAR, finished_at VARCHAR, command VARCHAR,
            backend VARCHAR, model VARCHAR, status VARCHAR, out_dir VARCHAR,
            files_total BIGINT, files_done BIGINT, files_failed BIGINT,
            input_tokens BIGINT, output_tokens BIGINT, llm_calls BIGINT, wall_ms DOUBLE
        )
        """
    )
    con.execute(
        """
        CREATE TABLE files (
            run_id VARCHAR NOT NULL, relpath VARCHAR NOT NULL, sha256 VARCHAR, bytes BIGINT,
            content_type VARCHAR, level VARCHAR, input_tokens BIGINT, output_tokens BIGINT,
            compression_ratio DOUBLE, chunks BIGINT, nodes BIGINT, llm_calls BIGINT,
            prompt_tokens BIGINT, completion_tokens BIGINT, wall_ms DOUBLE, status VARCHAR, error VARCHAR
        )
        """
    )
    con.execute(
        """
        CREATE TABLE nodes (
            run_id VARCHAR NOT NULL, relpath VARCHAR NOT NULL, node_id VARCHAR NOT NULL, level VARCHAR,
            "index" BIGINT, parent VARCHAR, input_tokens BIGINT, output_tokens BIGINT, compression_ratio DOUBLE,
            backend VARCHAR, model VARCHAR, attempts BIGINT, latency_ms DOUBLE, cache_hit BOOLEAN
        )
        """
    )


@migration
def m002_incremental_and_cache(con: Any) -> None:
    # Incremental runs, the LLM response cache and fallbacks became visible in the records.
    for col in (
        "files_unchanged",
        "files_skipped",
        "files_deleted",
        "cache_hits",
        "prompt_tokens",
        "completion_tokens",
        "nodes_computed",
        "nodes_reused",
    ):
        con.execute(f"ALTER TABLE runs ADD COLUMN {col} BIGINT DEFAULT 0")
    con.execute("ALTER TABLE files ADD COLUMN fallback_nodes BIGINT DEFAULT 0")
    con.execute("ALTER TABLE files ADD COLUMN nodes_recomputed BIGINT DEFAULT 0")
    for col in ("prompt_tokens", "completion_tokens", "llm_calls"):
        con.execute(f"ALTER TABLE nodes ADD COLUMN {col} BIGINT DEFAULT 0")
    con.execute("ALTER TABLE nodes ADD COLUMN reused BOOLEAN DEFAULT false")
    con.execute("ALTER TABLE nodes ADD COLUMN error VARCHAR")


@migration
def m003_evals(con: Any) -> None:
    con.execute(
        """
        CREATE TABLE evals (
            eval_id VARCHAR NOT NULL, created_at VARCHAR, dataset VARCHAR, method VARCHAR, doc_id VARCHAR,
            rouge1 DOUBLE, rouge2 DOUBLE, rougeLsum DOUBLE, entity_recall DOUBLE, number_recall DOUBLE,
            compression_ratio DOUBLE, seconds DOUBLE, budget VARCHAR
        )
        """
    )


@migration
def m004_runs_recorded_at(con: Any) -> None:
    # started_at has one-second resolution: runs started in the same second need a tie-break.
    con.execute("ALTER TABLE runs ADD COLUMN recorded_at VARCHAR")


@migration
def m005_files_secrets_redacted(con: Any) -> None:
    con.execute("ALTER TABLE files ADD COLUMN secrets_redacted BIGINT DEFAULT 0")


@migration
def m006_runs_fallback_nodes(con: Any) -> None:
    con.execute("ALTER TABLE runs ADD COLUMN fallback_nodes BIGINT DEFAULT 0")


@migration
def m007_files_target_tokens(con: Any) -> None:
    con.execute("ALTER TABLE files ADD COLUMN target_tokens BIGINT")


@migration
def m008_files_language(con: Any) -> None:
    con.execute("ALTER TABLE files ADD COLUMN language VARCHAR")


@migration
def m009_evals_status(con: Any) -> None:
    # A document without a reference counts 0 in eval's printed means: stored with its status, the
    # report's means are the printed ones (rows written before this read as "ok").
    con.execute("ALTER TABLE evals ADD COLUMN status VARCHAR")


SCHEMA_VERSION = len(MIGRATIONS)

# Table -> record dataclass; the partition key of every table is its first column.
RECORD_TYPES: dict[str, type] = {"runs": RunRecord, "files": FileRecord, "nodes": NodeRecord}
EVAL_COLUMNS: list[tuple[str, str]] = [
    ("eval_id", "VARCHAR"),
    ("created_at", "VARCHAR"),
    ("dataset", "VARCHAR"),
    ("method", "VARCHAR"),
    ("doc_id", "VARCHAR"),
    ("rouge1", "DOUBLE"),
    ("rouge2", "DOUBLE"),
    ("rougeLsum", "DOUBLE"),
    ("entity_recall", "DOUBLE"),
    ("number_recall", "DOUBLE"),
    ("compression_ratio", "DOUBLE"),
    ("seconds", "DOUBLE"),
    ("budget", "VARCHAR"),
    ("status", "VARCHAR"),  # ok | failed | no_reference
]
# Columns the store fills itself, after the record's fields.
STORE_COLUMNS: dict[str, list[tuple[str, str]]] = {"runs": [("recorded_at", "VARCHAR")]}
PARTITION_KEYS: dict[str, str] = {"runs": "run_id", "files": "run_id", "nodes": "run_id", "evals": "eval_id"}
TABLES: tuple[str, ...] = ("runs", "files", "nodes", "evals")

_SQL_TYPES = {"str": "VARCHAR", "int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN"}


def sql_type(annotation: Any) -> str:
    """DuckDB type of a record field annotation such as ``"int | None"``."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    base = [p.strip() for p in text.split("|") if p.strip() != "None"]
    if len(base) != 1 or base[0] not in _SQL_TYPES:
        raise TypeError(f"no DuckDB type for record field annotation {text!r}")
    return _SQL_TYPES[base[0]]


def table_columns(table: str) -> list[tuple[str, str]]:
    """(name, DuckDB type) of every column the current code expects in ``table``."""
    if table == "evals":
        return list(EVAL_COLUMNS)
    fields = [(f.name, sql_type(f.type)) for f in dataclasses.fields(RECORD_TYPES[table])]
    return fields + STORE_COLUMNS.get(table, [])


def _catalog_filter(catalog: str | None) -> str:
    return "current_database()" if catalog is None else "'" + catalog.replace("'", "''") + "'"


def user_tables(con: Any, catalog: str | None = None) -> list[str]:
    """Tables in the main schema of the current (or the named attached) database."""
    rows = con.execute(
        f"SELECT table_name FROM duckdb_tables() WHERE database_name = {_catalog_filter(catalog)} "
        "AND schema_name = 'main'"
    ).fetchall()
    return sorted(r[0] for r in rows)


def applied_migrations(con: Any, catalog: str | None = None) -> list[str]:
    """Names of migrations applied to the database, oldest first ([] if none)."""
    if MIGRATIONS_TABLE not in user_tables(con, catalog):
        return []
    prefix = "" if catalog is None else f'"{catalog}".main.'
    rows = con.execute(f"SELECT name FROM {prefix}{MIGRATIONS_TABLE} ORDER BY applied_at, name").fetchall()
    return [r[0] for r in rows]


def unknown_migrations(applied: list[str]) -> list[str]:
    """Applied migrations this code does not know: the file comes from a newer batchsum."""
    known = {fn.__name__ for fn in MIGRATIONS}
    return [name for name in applied if name not in known]


def migrate(con: Any) -> list[str]:
    """Apply pending migrations in one transaction; return the names applied."""
    applied = set(applied_migrations(con))
    pending = [fn for fn in MIGRATIONS if fn.__name__ not in applied]
    if not pending:
        return []
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (name VARCHAR NOT NULL, applied_at VARCHAR)")
        for fn in pending:
            fn(con)
            now = datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")
            con.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?)", [fn.__name__, now])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return [fn.__name__ for fn in pending]
