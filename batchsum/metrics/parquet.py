"""Parquet snapshots of the metrics tables, one hive partition per run (or eval).

Layout: ``<parquet_dir>/<table>/<key>=<value>/part-0.parquet`` with the partition column
taken out of the file (standard hive layout), zstd-compressed. Each file is written to a
temporary name in its folder and moved into place with ``os.replace``, so readers see
either the old or the new snapshot, never a partial file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from batchsum.metrics.migrations import PARTITION_KEYS
from batchsum.tree import atomic_target

PART_FILE = "part-0.parquet"


def sql_literal(value: str) -> str:
    """A single-quoted SQL string literal (for statements like COPY that take no parameters)."""
    return "'" + value.replace("'", "''") + "'"


def partition_dir(parquet_dir: Path, table: str, key: str) -> Path:
    """Folder of one partition; the value is percent-encoded the way hive readers decode it."""
    return parquet_dir / table / f"{PARTITION_KEYS[table]}={quote(key, safe='-_.')}"


def table_glob(parquet_dir: Path, table: str) -> str:
    """Glob matching every snapshot of ``table`` (temporary files do not match)."""
    return str(parquet_dir / table / "*" / "*.parquet")


def snapshotted_keys(parquet_dir: Path, table: str) -> set[str]:
    """Partition values that have a complete snapshot file of ``table``."""
    base = parquet_dir / table
    prefix = f"{PARTITION_KEYS[table]}="
    if not base.is_dir():
        return set()
    return {
        unquote(d.name[len(prefix) :])
        for d in base.iterdir()
        if d.name.startswith(prefix) and (d / PART_FILE).is_file()
    }


def has_snapshots(parquet_dir: Path, table: str) -> bool:
    """True when at least one snapshot of ``table`` exists."""
    base = parquet_dir / table
    return base.is_dir() and any(base.glob(f"*/{PART_FILE}"))


def write_snapshot(con: Any, parquet_dir: Path, table: str, key: str) -> Path:
    """Write the rows of ``table`` whose partition column equals ``key``; return the file."""
    col = PARTITION_KEYS[table]
    folder = partition_dir(parquet_dir, table, key)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / PART_FILE
    query = f'SELECT * EXCLUDE ("{col}") FROM {table} WHERE "{col}" = {sql_literal(key)}'
    with atomic_target(final) as tmp:
        tmp.unlink()  # DuckDB's COPY creates the file itself
        con.execute(f"COPY ({query}) TO {sql_literal(str(tmp))} (FORMAT parquet, COMPRESSION zstd)")
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
    return final
