"""A search of an output on read-only storage reads a temporary copy of its index, and a check of any
output a copy of its Chroma folder.

Chroma and SQLite in WAL mode write when they open a database, so on read-only storage they fail as if
the index were damaged; the copy holds the index files only, never the tree.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from batchsum.config import IndexConfig
from batchsum.errors import IndexError_
from batchsum.index.clients import forget_client
from batchsum.index.state import chroma_dir, lexical_path, read_only, state_path, vectors_path

log = logging.getLogger(__name__)


@contextmanager
def readable_index(cfg: IndexConfig) -> Iterator[IndexConfig]:
    """``cfg``, or when its output is read-only a config that reads a temporary copy of the index.

    Chroma and SQLite in WAL mode write when they open a database (migrations, the shared-memory
    file), so on read-only storage they fail as if the index were damaged. The copy (the index
    files only, never the tree) is removed afterwards.
    """
    if cfg.chroma_host or cfg.index_copy is not None or not read_only(cfg.state_dir):
        yield cfg
        return
    log.info("%s is read-only: searching a temporary copy of its index", cfg.out)
    with tempfile.TemporaryDirectory(prefix="batchsum-index-") as tmp:
        copy = dataclasses.replace(cfg, index_copy=Path(tmp))
        if chroma_dir(cfg).is_dir():
            shutil.copytree(chroma_dir(cfg), chroma_dir(copy))
        for path in (lexical_path(cfg), vectors_path(cfg), state_path(cfg)):
            for part in (path, path.with_name(path.name + "-wal")):
                if part.is_file():
                    shutil.copy2(part, Path(tmp) / part.name)
        try:
            yield copy
        finally:
            forget_client(chroma_dir(copy))


@contextmanager
def chroma_snapshot(cfg: IndexConfig) -> Iterator[IndexConfig]:
    """``cfg`` with a temporary copy of its Chroma folder, for a caller that promises to write nothing.

    Chroma writes whenever it opens a folder (rows of its SQLite database, the HNSW files it saves when
    its client closes), on writable storage too. Only the Chroma folder is in the copy: read the other
    index files through ``cfg``. An error names the user's folder, not the copy.
    """
    if cfg.chroma_host or cfg.index_copy is not None:  # a server's store, or already a copy
        yield cfg
        return
    with tempfile.TemporaryDirectory(prefix="batchsum-chroma-") as tmp:
        copy = dataclasses.replace(cfg, index_copy=Path(tmp))
        if chroma_dir(cfg).is_dir():
            shutil.copytree(chroma_dir(cfg), chroma_dir(copy))
        try:
            yield copy
        except IndexError_ as exc:
            exc.args = tuple(str(a).replace(str(chroma_dir(copy)), str(chroma_dir(cfg))) for a in exc.args)
            raise
        finally:
            forget_client(chroma_dir(copy))
