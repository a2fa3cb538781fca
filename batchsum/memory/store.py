"""Facts in the search index: the same Chroma collection as the summaries, told apart by ``role: memory``.

Record id = the fact's id; document = its text; metadata = its front matter plus ``doc_ts`` (for
recency), ``summary_path`` (the fact file) and ``content_hash``. Fact records carry no ``doc_id`` and no
``level``, so the summaries' sync (per source document) and level queries never touch them. The fact
files are the truth: :meth:`FactIndex.sync` makes the records match them again (after an index
rebuild, say).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.index.embed import get_embedder
from batchsum.index.records import content_hash, date_to_ts
from batchsum.index.store import chroma_errors, open_collection
from batchsum.memory.files import ROLE, Fact, iter_facts

if TYPE_CHECKING:
    from batchsum.config import IndexConfig

log = logging.getLogger(__name__)

BATCH = 256


def fact_metadata(out: Path, fact: Fact) -> dict[str, Any]:
    """The Chroma metadata of a fact (None values dropped: Chroma takes only str/int/float/bool)."""
    meta = {k: v for k, v in fact.meta().items() if v is not None}
    md: dict[str, Any] = {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))}
    md["source_path"] = fact.source_path or fact.scope
    if fact.path is not None:
        try:
            md["summary_path"] = fact.path.relative_to(out).as_posix()
        except ValueError:
            md["summary_path"] = str(fact.path)
    ts = date_to_ts(fact.doc_date or fact.created_at[:10])
    if ts is not None:
        md["doc_ts"] = ts
    md["content_hash"] = content_hash(meta, fact.text)
    return md


@dataclass
class Neighbour:
    """An existing fact near a query, with its cosine similarity."""

    id: str
    similarity: float


class FactIndex:
    """Facts of one output folder in its Chroma collection; opened on first use."""

    def __init__(self, cfg: IndexConfig) -> None:
        self.cfg = cfg
        self._embedder: Any = None

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = get_embedder(self.cfg)
        return self._embedder

    @property
    def collection(self) -> Any:
        # Looked up on every use (a dict lookup and one small query): the process's client may have been
        # reopened since (see batchsum.serve.guard), and an old collection handle would point at the old one.

        return open_collection(self.cfg, self.embedder, create=True)

    def upsert(self, facts: list[Fact]) -> int:
        """Embed and store these facts (by id)."""

        with chroma_errors(self.cfg):
            for start in range(0, len(facts), BATCH):
                batch = facts[start : start + BATCH]
                vectors = self.embedder.embed([f.text for f in batch])
                self.collection.upsert(
                    ids=[f.id for f in batch],
                    embeddings=vectors,
                    documents=[f.text for f in batch],
                    metadatas=[fact_metadata(self.cfg.out, f) for f in batch],
                )
        return len(facts)

    def delete(self, ids: Iterable[str]) -> int:
        """Remove these facts' records."""

        ids = list(ids)
        if ids:
            with chroma_errors(self.cfg):
                self.collection.delete(ids=ids)
        return len(ids)

    def indexed(self) -> dict[str, str]:
        """id -> content hash of every fact record."""

        found: dict[str, str] = {}
        with chroma_errors(self.cfg):
            offset = 0
            while True:
                res = self.collection.get(where={"role": ROLE}, include=["metadatas"], limit=5000, offset=offset)
                for rid, md in zip(res["ids"], res["metadatas"] or [], strict=False):
                    found[rid] = str((md or {}).get("content_hash", ""))
                if len(res["ids"]) < 5000:
                    return found
                offset += 5000

    def sync(self) -> tuple[int, int]:
        """Make the fact records match the live fact files: (records written, records removed)."""
        live = {f.id: f for f in iter_facts(self.cfg.out)}
        have = self.indexed()
        todo = [f for fid, f in live.items() if have.get(fid) != fact_metadata(self.cfg.out, f)["content_hash"]]
        gone = [fid for fid in have if fid not in live]
        self.upsert(todo)
        self.delete(gone)
        if todo or gone:
            log.info("fact index of %s: %d written, %d removed", self.cfg.out, len(todo), len(gone))
        return len(todo), len(gone)

    def neighbours(self, scope: str, texts: list[str], k: int = 5) -> list[Neighbour]:
        """The facts of ``scope`` nearest to any of ``texts`` (best similarity first, no duplicates)."""

        if not texts:
            return []
        where = {"$and": [{"role": ROLE}, {"scope": scope}]}
        with chroma_errors(self.cfg):
            if not self.collection.get(where=where, limit=1, include=[])["ids"]:
                return []
            vectors = self.embedder.embed(texts)
            res = self.collection.query(query_embeddings=list(vectors), n_results=k, where=where, include=["distances"])
        best: dict[str, float] = {}
        for ids, dists in zip(res["ids"], res["distances"], strict=True):
            for rid, d in zip(ids, dists, strict=True):
                best[rid] = max(best.get(rid, -1.0), 1.0 - float(d))
        return [Neighbour(i, s) for i, s in sorted(best.items(), key=lambda kv: -kv[1])]
