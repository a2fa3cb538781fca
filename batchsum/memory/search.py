"""Search the facts of an output folder with the summaries' ranking (seed 001 §3).

Dense candidates (``k * 3``) among ``role: memory`` records, optionally of some scopes; a cosine floor
prunes what is unrelated; relevance = the min-max normalized cosine; ``0.8 * relevance + 0.2 *
exp(-age_days / 30)``; MMR (λ = 0.7, near-copies dropped) picks ``k``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from batchsum.errors import ConfigError, IndexError_
from batchsum.index.embed import get_embedder
from batchsum.index.readonly import readable_index
from batchsum.index.search import minmax, mmr, recency
from batchsum.index.store import chroma_errors, open_collection
from batchsum.memory.files import ROLE, iter_facts

if TYPE_CHECKING:
    from batchsum.config import IndexConfig

CANDIDATES = 3  # x k
MIN_COSINE = 0.2  # below this a fact is unrelated to the query (MiniLM: unrelated sentences score ~0-0.15)
RECENCY_WEIGHT = 0.2


@dataclass
class FactHit:
    """One fact found."""

    rank: int
    score: float
    relevance: float
    recency: float
    similarity: float
    id: str
    role: str
    text: str
    scope: str
    source_path: str
    doc_date: str | None
    created_at: str | None
    path: Path

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        d = asdict(self)
        d["path"] = str(self.path)
        return d


def search_facts(
    cfg: IndexConfig,
    query: str,
    *,
    k: int = 5,
    scopes: list[str] | None = None,
    where: dict[str, Any] | None = None,
    today: date | None = None,
) -> list[FactHit]:
    """The ``k`` best facts for ``query`` (best first); [] when the output has no facts, an IndexError_ when
    it has facts its index lacks (``where`` left out).

    ``where``: a Chroma filter replacing the default ``role: memory`` (e.g. facts or this chat's turns).
    """
    q = query.strip()
    if not q:
        raise ConfigError("empty query: give some words to search for")
    if k < 1:
        raise ConfigError(f"-k {k}: ask for at least 1 result")
    embedder = get_embedder(cfg)
    all_facts = where is None  # `search --role memory`: say when the index lacks facts OUT holds
    if where is None:
        where = {"role": ROLE}
    if scopes:
        where = {"$and": [where, {"scope": {"$in": list(scopes)}}]}
    try:
        res, indexed = _query(cfg, embedder, q, k * CANDIDATES, where)
    except IndexError_ as exc:
        # No index at all: the rebuild it advises would still leave the facts out (`batchsum index` skips them).
        if all_facts and str(exc) == f"no search index in {cfg.out}; run `{cfg.index_command('--rebuild')}`":
            _unindexed(cfg, exc)
        raise
    if all_facts and not indexed:
        _unindexed(cfg, None)
    ids = list(res["ids"][0])
    if not ids:
        return []
    docs = [d or "" for d in res["documents"][0]]
    metas = [dict(m or {}) for m in res["metadatas"][0]]
    cosine = np.array([1.0 - float(d) for d in res["distances"][0]], dtype=np.float32)
    keep = [i for i in range(len(ids)) if cosine[i] >= MIN_COSINE]
    if not keep:
        return []
    ids, docs, metas, cosine = [ids[i] for i in keep], [docs[i] for i in keep], [metas[i] for i in keep], cosine[keep]
    matrix = np.asarray([res["embeddings"][0][i] for i in keep], dtype=np.float32)
    matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    # Facts are single sentences, which is what the embedding model compares best: the cosine is the
    # relevance. (MaxSim over freshly computed token vectors cost ~0.5 s per query for 15 candidates on
    # two cores - half a second of latency on every chat request - for facts with no stored token vectors.)
    relevance = minmax(cosine)
    day = today or datetime.now(UTC).date()
    rec = np.array([recency(m.get("doc_ts"), day) for m in metas], dtype=np.float32)
    final = (1 - RECENCY_WEIGHT) * relevance + RECENCY_WEIGHT * rec
    order = mmr(final, matrix, k)
    return [
        FactHit(
            rank=rank,
            score=round(float(final[i]), 4),
            relevance=round(float(relevance[i]), 4),
            recency=round(float(rec[i]), 4),
            similarity=round(float(cosine[i]), 4),
            id=ids[i],
            role=str(metas[i].get("role", ROLE)),
            text=docs[i],
            scope=str(metas[i].get("scope", "")),
            source_path=str(metas[i].get("source_path", "")),
            doc_date=metas[i].get("doc_date"),
            created_at=metas[i].get("created_at"),
            path=cfg.out / str(metas[i].get("summary_path", "")),
        )
        for rank, i in enumerate(order, start=1)
    ]


def _query(cfg: IndexConfig, embedder: Any, q: str, n: int, where: dict[str, Any]) -> tuple[Any, bool]:
    """Chroma's answer for ``q`` and whether the index holds any fact at all (an empty answer may mean none)."""
    # Chroma writes when it opens its folder: on read-only storage it failed as if corrupt (and advised a
    # rebuild), so a read-only output's facts are searched in a temporary copy of its index, as summaries are.
    with readable_index(cfg) as readable:
        col = open_collection(readable, embedder, create=False)
        with chroma_errors(readable):
            qvec = np.asarray(embedder.embed([q])[0], dtype=np.float32)
            res = col.query(
                query_embeddings=[qvec], n_results=n, where=where,
                include=["documents", "metadatas", "embeddings", "distances"],
            )  # fmt: skip
            indexed = bool(res["ids"][0]) or bool(col.get(where={"role": ROLE}, limit=1, include=[])["ids"])
    return res, indexed


def _unindexed(cfg: IndexConfig, cause: IndexError_ | None) -> None:
    """Raise an IndexError_ when ``cfg.out`` holds facts its index lacks (a pass with ``--no-index``, an
    index rebuilt since): "no matching facts", or a hint to rebuild an index that leaves facts out, would
    hide them. The next facts pass indexes them, so that is what the message says to run."""
    if next(iter_facts(cfg.out), None) is None:
        return
    raise IndexError_(
        f"the facts of {cfg.out} are not in its search index (written with --no-index, or the index was rebuilt"
        f" since): `batchsum facts SOURCES --out {cfg.out}` indexes them"
    ) from cause
