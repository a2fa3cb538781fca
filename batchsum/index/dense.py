"""The dense channel of search: the nodes nearest to the query vector, and the rows of chosen nodes.

Two sources answer the same questions:

* :class:`LocalVectors` (an index inside the output folder): search's copy of the vectors and filter
  fields (:mod:`batchsum.index.vectors`), ranked exactly with numpy. No chromadb import: that alone
  costs about a second, several times the rest of a command-line search.
* :class:`ChromaVectors` (``--chroma-host``, or a local index without that copy): Chroma's HNSW query,
  one wide unfiltered query split by level, level-filtered queries only for a level that falls short.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import sqlite3
import unicodedata
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from batchsum.errors import IndexError_
from batchsum.index.chroma import chroma_errors, open_collection, refused_error
from batchsum.index.lexical import LexFilter
from batchsum.index.state import read_state, vectors_path
from batchsum.index.vectors import DENSE_LEVELS, NodeRow, VectorStore

if TYPE_CHECKING:
    from pathlib import Path

    from batchsum.config import IndexConfig
    from batchsum.index.embed import Embedder

WIDE_FACTOR = 10  # the unfiltered first Chroma query fetches this many times k*3 nodes
_ID_LEVEL = re.compile(r":summary:L([1234]):[^:]*$")


class DenseIndex(Protocol):
    """What search asks of the vectors."""

    def nearest(self, qvec: np.ndarray, per_level: int, filt: LexFilter) -> dict[str, float]: ...

    def rows(self, ids: list[str]) -> dict[str, NodeRow]: ...

    def finals_on(self, days: list[str], filt: LexFilter) -> list[str]: ...

    def sources(self) -> list[str]: ...

    def close(self) -> None: ...


def open_dense(cfg: IndexConfig, embedder: Embedder) -> DenseIndex:
    """The local copy when the output has a current one, else Chroma."""
    path = vectors_path(cfg)
    if not cfg.chroma_host and path.is_file():
        try:
            store = VectorStore(path, read_only=True)
        except sqlite3.Error as exc:
            raise unreadable_vectors(path, exc, cfg.index_command("--rebuild")) from None
        if store.current:
            state = read_state(cfg) or {}
            model = state.get("embed_model")
            if model and model != embedder.name:
                store.close()
                raise IndexError_(
                    f"the index in {cfg.out} (collection {cfg.collection!r}) was built with {model},"
                    f" not {embedder.name}; run `{cfg.index_command('--rebuild')}`"
                )
            return LocalVectors(store)
        store.close()
    return ChromaVectors(cfg, embedder)


def unreadable_vectors(path: Path, exc: sqlite3.Error, rebuild: str) -> IndexError_:
    """The error for the node vectors at ``path`` that SQLite failed to open or read: the system refusing the
    file (out of descriptors, no permission: :func:`~batchsum.index.chroma.refused_error`) is no damage, so no
    rebuild is offered and a rebuild leaves the index where it is; any other failure is, and ``rebuild`` (the
    command) replaces it."""
    refused = refused_error("the node vectors", path, exc)
    return refused or IndexError_(f"node vectors {path} are unreadable ({exc}); run `{rebuild}`")


def matching_sources(sources: list[str], glob: str) -> list[str]:
    """The source relpaths matching a path glob; a trailing '/' means the folder."""
    pattern = unicodedata.normalize("NFC", glob.rstrip("/") + "/*" if glob.endswith("/") else glob)
    # NFC on both sides: a name synced from a Mac (NFD) matches the glob as it is typed.
    return [s for s in sources if _glob_match(unicodedata.normalize("NFC", s), pattern)]


def _glob_match(source: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(source, pattern) or fnmatch.fnmatchcase(source, pattern + "/*")


class LocalVectors:
    """Exact nearest neighbours over search's copy of the node vectors."""

    def __init__(self, store: VectorStore) -> None:
        self.store = store

    def nearest(self, qvec: np.ndarray, per_level: int, filt: LexFilter) -> dict[str, float]:
        """The ``per_level`` nodes of each level nearest to ``qvec`` among those ``filt`` admits."""
        try:
            return self.store.nearest(qvec, per_level, filt)
        except sqlite3.Error as exc:
            raise self._broken(exc) from None

    def rows(self, ids: list[str]) -> dict[str, NodeRow]:
        """The rows of these node ids."""
        try:
            return self.store.get_many(ids)
        except sqlite3.Error as exc:
            raise self._broken(exc) from None

    def finals_on(self, days: list[str], filt: LexFilter) -> list[str]:
        """The final nodes of the documents dated on one of ``days`` (:meth:`VectorStore.finals_on`)."""
        try:
            return self.store.finals_on(days, filt)
        except sqlite3.Error as exc:
            raise self._broken(exc) from None

    def sources(self) -> list[str]:
        """Source paths of the indexed documents."""
        try:
            return self.store.sources()
        except sqlite3.Error as exc:
            raise self._broken(exc) from None

    def _broken(self, exc: sqlite3.Error) -> IndexError_:
        path = self.store.path
        return unreadable_vectors(path, exc, f"batchsum index {shlex.quote(str(path.parent.parent))} --rebuild")

    def close(self) -> None:
        """Close the database."""
        self.store.close()


class ChromaVectors:
    """Chroma's approximate nearest neighbours; rows from the local copy when there is one, else Chroma."""

    def __init__(self, cfg: IndexConfig, embedder: Embedder) -> None:
        self.cfg = cfg
        self.col = open_collection(cfg, embedder, create=False)
        self._size: int | None = None  # records in the collection, asked once

    def _where(self, filt: LexFilter) -> list[dict[str, Any]]:
        base: list[dict[str, Any]] = []
        if filt.content_type:  # only sources: a digest (level 4) is none
            base.extend([{"content_type": filt.content_type}, {"level": {"$ne": 4}}])
        if filt.since_ts is not None:
            # Only documents with a real date: a copy date says nothing about when a text was written. ``later``
            # passes by the days it covers: a file of many days dated by its first, a month's or a year's digest.
            since: dict[str, Any] = {"$and": [{"doc_ts": {"$gte": filt.since_ts}}, {"dated": True}]}
            if filt.later:
                since = {"$or": [since, {"source_path": {"$in": sorted(filt.later)}}]}
            base.append(since)
        if filt.sources is not None:
            base.append({"source_path": {"$in": sorted(filt.sources)}})
        return base

    def nearest(self, qvec: np.ndarray, per_level: int, filt: LexFilter) -> dict[str, float]:
        """The ``per_level`` nearest nodes of each level (or of the one asked for): id -> cosine similarity.

        One wide unfiltered query usually holds enough nodes of every level (a node id names its level);
        a level-filtered query, several times slower in Chroma, runs only for a level that falls short.
        """
        base = self._where(filt)
        with chroma_errors(self.cfg):
            if filt.level is not None:
                number = 4 if filt.level == "period" else int(filt.level) if filt.level != "final" else 0
                where = {"is_final": True} if filt.level == "final" else {"level": number}
                return dict(self._query(qvec, per_level, _and([*base, where])))
            wide = per_level * WIDE_FACTOR
            found = self._query(qvec, wide, _and([*base, {"role": "summary"}]))
            # The levels of the collapsed tree, as the local copy ranks them (VectorStore.nearest): a
            # period's digest is a candidate when asked for (--level period, a named period), not here.
            by_level: dict[int, list[tuple[str, float]]] = {lvl: [] for lvl in DENSE_LEVELS}
            for rid, sim in found:
                m = _ID_LEVEL.search(rid)
                if m is None:  # not a batchsum node id: fall back to one query per level
                    by_level = {lvl: [] for lvl in DENSE_LEVELS}
                    break
                got = by_level.get(int(m.group(1)))
                if got is not None and len(got) < per_level:
                    got.append((rid, sim))
            if len(found) == wide or any(not _ID_LEVEL.search(r) for r, _ in found):
                for lvl, got in by_level.items():
                    if len(got) < per_level:  # more of this level may lie beyond the wide net
                        by_level[lvl] = self._query(qvec, per_level, _and([*base, {"level": lvl}]))
            return {rid: sim for lvl in DENSE_LEVELS for rid, sim in by_level[lvl]}

    def _query(self, qvec: np.ndarray, n: int, where: dict[str, Any] | None) -> list[tuple[str, float]]:
        # Never more than the collection holds: Chroma's server refuses an n_results beyond 32 bits, so
        # a huge -k had failed as a server error where the local copy just returns every node.
        if self._size is None:
            self._size = int(self.col.count())
        n = min(n, self._size)
        if n < 1:
            return []
        res = self.col.query(query_embeddings=[qvec], n_results=n, where=where, include=["distances"])
        return [(rid, 1.0 - float(d)) for rid, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    def rows(self, ids: list[str]) -> dict[str, NodeRow]:
        """Rows of these ids (vectors, dates and metadata), fetched from Chroma."""
        if not ids:
            return {}
        with chroma_errors(self.cfg):
            res = self.col.get(ids=ids, include=["metadatas", "embeddings"])
        out: dict[str, NodeRow] = {}
        for rid, md, emb in zip(res["ids"], res["metadatas"], res["embeddings"], strict=True):
            meta = dict(md or {})
            ts = meta.get("doc_ts") if meta.get("dated") else None
            out[rid] = NodeRow(str(meta.get("content_hash", "")), ts, np.asarray(emb, dtype=np.float32), meta)
        return out

    def finals_on(self, days: list[str], filt: LexFilter) -> list[str]:
        """The final nodes ``filt`` admits of the documents dated on one of ``days`` (``1826-05-15``, or
        ``--05-15``: that day of any year) or within one of the months or years among them (``1826-05``, ``1826``)."""
        if filt.level not in (None, "final", "3"):
            return []
        with chroma_errors(self.cfg):
            res = self.col.get(where=_and([*self._where(filt), {"is_final": True}, {"dated": True}]),
                               include=["metadatas"])  # fmt: skip
        wanted = set(days)
        return [
            rid
            for rid, md in zip(res["ids"], res["metadatas"] or [], strict=True)
            if {day := str((md or {}).get("doc_date", ""))[:10], f"--{day[5:]}", day[:7], day[:4]} & wanted
        ]

    def sources(self) -> list[str]:
        """Source paths of the indexed documents."""
        with chroma_errors(self.cfg):
            res = self.col.get(where={"is_final": True}, include=["metadatas"])
        return sorted({str((md or {}).get("source_path", "")) for md in res["metadatas"] or []})

    def close(self) -> None:
        """Nothing to close: Chroma clients are kept per process."""


def _and(clauses: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
