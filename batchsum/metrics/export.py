"""``batchsum export``: every metrics table as Parquet, CSV or JSON files in one folder."""

from __future__ import annotations

from pathlib import Path

from batchsum.errors import ConfigError
from batchsum.metrics.migrations import TABLES
from batchsum.metrics.parquet import sql_literal
from batchsum.metrics.reader import open_metrics
from batchsum.tree import atomic_target

EXPORT_FORMATS: dict[str, tuple[str, str]] = {
    "parquet": ("parquet", "FORMAT parquet, COMPRESSION zstd"),
    "csv": ("csv", "FORMAT csv, HEADER true"),
    "json": ("json", "FORMAT json, ARRAY true"),
}

_ORDER = {
    "runs": "started_at, recorded_at NULLS FIRST, run_id",
    "files": "run_id, relpath",
    "nodes": "run_id, relpath, node_id",
    "evals": "eval_id, dataset, method, doc_id",
}


def export_metrics(out: Path, dest: Path, fmt: str, metrics_db: Path | None = None) -> list[Path]:
    """Write ``<dest>/<table>.<ext>`` for runs, files, nodes and evals; return the files written.

    Each file is written under a temporary name and moved into place, so an interrupted
    export never leaves a truncated file behind.
    """
    if fmt not in EXPORT_FORMATS:
        raise ConfigError(f"unknown export format {fmt!r} (choose parquet, csv or json)")
    if dest.exists() and not dest.is_dir():
        raise ConfigError(f"{dest}: export destination exists and is not a folder")
    ext, options = EXPORT_FORMATS[fmt]
    written: list[Path] = []
    with open_metrics(out, metrics_db) as source:
        dest.mkdir(parents=True, exist_ok=True)
        for table in TABLES:
            final = dest / f"{table}.{ext}"
            with atomic_target(final) as tmp:
                tmp.unlink()  # DuckDB's COPY creates the file itself
                source.con.execute(
                    f"COPY (SELECT * FROM {table} ORDER BY {_ORDER[table]}) TO {sql_literal(str(tmp))} ({options})"
                )
            written.append(final)
    return written
