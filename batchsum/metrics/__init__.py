"""Metrics: a DuckDB system of record, Parquet snapshots per run, reports and exports.

Nothing here imports duckdb or pyarrow at module import time.
"""

from __future__ import annotations

from batchsum.metrics.privacy import scrub_secrets
from batchsum.metrics.store import MetricsStore, default_db_path, default_parquet_dir, open_store

__all__ = ["MetricsStore", "default_db_path", "default_parquet_dir", "open_store", "scrub_secrets"]
