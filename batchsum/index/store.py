"""The index as a whole: sync, check, repair, rebuild, state and sizes (Chroma itself: :mod:`batchsum.index.chroma`).

Every summary node of the Markdown tree becomes one Chroma record whose id is the node id, whose
document is the node's summary text and whose metadata is built by :mod:`batchsum.index.records`, so
the collection is usable from plain ``chromadb`` with :func:`batchsum.index.embedding_function`. A run
hands its finished files over in memory (:class:`~batchsum.index.records.DocUpdate`); repair and
rebuild read the tree. Beside Chroma, the store of record: search's own copy of the vectors and the
fields it filters on (:mod:`batchsum.index.vectors`, read without importing chromadb) and the lexical
layer (:mod:`batchsum.index.lexical`, BM25 over summaries and sources, which Chroma does not do).
The tree is the source of truth: everything here can be rebuilt from it.

``index-<collection>.json`` records the layout and whether the index is complete: it is written
"incomplete" before any change and "complete" after, so an interrupted sync or rebuild is noticed
(:func:`index_needs_work`) and repaired by the next run, and ``search`` can warn.
"""

from __future__ import annotations

import contextlib
import logging
import shlex
import shutil
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from batchsum.errors import IndexError_

# forget_client and open_collection are imported from here by other packages (memory, serve).
from batchsum.index.chroma import (
    chroma_errors,
    create_collection,
    get_collection,
    is_legacy,
    open_client,
    refused_error,
)
from batchsum.index.chroma import open_collection as open_collection
from batchsum.index.clients import forget_client as forget_client
from batchsum.index.embed import (
    Embedder,
    Precomputed,
    get_embedder,
)
from batchsum.index.lexical import (
    LexicalStore,
    doc_signature,
    keep_only,
    nodes_by_doc,
    open_lexical,
    update_docs,
)
from batchsum.index.lexical import rebuild as rebuild_lexical
from batchsum.index.readonly import chroma_snapshot, readable_index
from batchsum.index.records import DocUpdate, IndexNode, SourceReader, doc_nodes, tree_nodes

# index_sizes, index_stats and lexical_outdated are imported from here by the CLI and the benches.
from batchsum.index.sizes import PartSize as PartSize
from batchsum.index.sizes import check_lexical
from batchsum.index.sizes import index_sizes as index_sizes
from batchsum.index.sizes import index_stats as index_stats
from batchsum.index.sizes import lexical_outdated as lexical_outdated
from batchsum.index.state import (
    UNKNOWN,
    UPGRADE,
    check_output_folder,
    chroma_dir,
    chroma_location,
    completeness,
    drop_leftovers,
    index_needs_work,
    legacy_files,
    lexical_path,
    marked_incomplete,
    missing_parts,
    rebuilding_run,
    recorded_server,
    vectors_path,
    write_state,
)
from batchsum.index.vectors import NodeRow, VectorStore, shadow_store
from batchsum.lock import RunLock
from batchsum.model import doc_id_of
from batchsum.sources import manifest_reader

if TYPE_CHECKING:
    from batchsum.config import IndexConfig, RunConfig

log = logging.getLogger(__name__)

# Records per Chroma upsert. Each call costs Chroma a fixed overhead: on 10,000 short notes, calls of
# 2,000 records took a tenth less of its time than calls of 200 (its local limit is 5,461).
UPSERT_BATCH = 2000
EMBED_BATCH = 256  # texts per embedder call (2,000 short summaries at once took 115 MB more)
GET_PAGE = 5000
IN_BATCH = 200  # doc ids per `$in` filter


@dataclass
class IndexStats:
    """What one sync, repair or rebuild did."""

    docs: int = 0
    nodes_indexed: int = 0  # embedded and upserted
    nodes_unchanged: int = 0  # already indexed with the same content hash
    nodes_deleted: int = 0
    nodes_embedded_elsewhere: int = 0  # of nodes_indexed, vectors computed by the run's workers
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # what the user should know (an upgrade, a repair)

    @property
    def nodes_per_s(self) -> float:
        """Indexing throughput of this call."""
        return self.nodes_indexed / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``index --json`` prints of a repair or rebuild (the command adds what it read of the
        sources)."""
        return {
            "docs": self.docs,
            "nodes_indexed": self.nodes_indexed,
            "nodes_unchanged": self.nodes_unchanged,
            "nodes_deleted": self.nodes_deleted,
            "seconds": round(self.seconds, 3),
            "nodes_per_s": round(self.nodes_per_s, 1),
            "notes": list(self.notes),
        }


@dataclass
class IndexCheck:
    """Differences between the Markdown tree and the index, and what of the index is gone or incomplete."""

    nodes_in_tree: int = 0
    nodes_in_index: int = 0
    missing: list[str] = field(default_factory=list)  # in the tree, not in the index
    stale: list[str] = field(default_factory=list)  # indexed with other content than the file has now
    orphans: list[str] = field(default_factory=list)  # in the index, no node file any more
    damaged: list[str] = field(default_factory=list)  # index files that fail SQLite's integrity check
    outdated: list[str] = field(default_factory=list)  # parts of another batchsum's layout, which search does not read
    missing_parts: list[str] = field(default_factory=list)  # files of a built index that are gone, with their paths
    sources: int = 0  # documents with a source file
    # Of those, the ones indexed by their summaries alone (their source was not found): search finds none of
    # their words the summaries left out. Not a fault of the index, so not counted against ``ok``.
    sources_not_found: list[str] = field(default_factory=list)
    # The run rebuilding the index meanwhile ("pid 4242 (started ...)"): Chroma was then not compared (it is rebuilt
    # in place), the local search files were (what search reads until it ends).
    rebuilding: str | None = None
    # Why the index is marked incomplete when the comparison finds nothing (a run killed before its sync ended, or
    # one syncing now): search warns so, where "index OK" had said otherwise.
    incomplete: str | None = None

    @property
    def ok(self) -> bool:
        """True when the index matches the tree exactly and its files are all there, sound and of this version's
        layout."""
        return (
            not (self.missing or self.stale or self.orphans or self.damaged or self.outdated or self.missing_parts)
            and not self.incomplete
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``index --check --json`` prints."""
        lists = ("missing", "stale", "orphans", "damaged", "outdated", "missing_parts", "sources_not_found")
        return {
            "ok": self.ok,
            "nodes_in_tree": self.nodes_in_tree,
            "nodes_in_index": self.nodes_in_index,
            **{name: list(getattr(self, name)) for name in lists},
            "rebuilding": self.rebuilding,
            "incomplete": self.incomplete,
        }


# -- writing -----------------------------------------------------------------------------------------


def _batched(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def vector_store(cfg: IndexConfig) -> VectorStore:
    """The node vector store of this output and collection."""
    with _vector_errors(cfg):
        return VectorStore(vectors_path(cfg))


@contextlib.contextmanager
def _vector_errors(cfg: IndexConfig) -> Iterator[None]:
    """A SQLite failure on the node vectors as a one-line IndexError_ (the system's refusal offers no rebuild)."""
    path = vectors_path(cfg)
    try:
        yield
    except sqlite3.Error as exc:
        if (refused := refused_error("the node vectors", path, exc)) is not None:
            raise refused from None
        raise IndexError_(
            f"node vectors {path} are unreadable ({exc}); run `{cfg.index_command('--rebuild')}`"
        ) from None


def _recency_ts(node: IndexNode) -> int | None:
    return node.metadata.get("doc_ts") if node.metadata.get("dated") else None


def _upsert(col: Any, embedder: Embedder, nodes: list[IndexNode], vectors: VectorStore | None) -> int:
    import numpy as np

    for batch in _batched(nodes, UPSERT_BATCH):
        # Embedded EMBED_BATCH texts at a time: the static embedder holds a row per token of its texts.
        embs = np.concatenate([embedder.embed(part) for part in _batched([n.body for n in batch], EMBED_BATCH)])
        if vectors is not None:
            vectors.put_many(
                [
                    (n.id, NodeRow(n.metadata["content_hash"], _recency_ts(n), e, n.metadata))
                    for n, e in zip(batch, embs, strict=True)
                ]
            )
        # The summary text is the record's document, so other tools (plain chromadb, LangChain, LlamaIndex)
        # get text back and can query with :func:`batchsum.index.embedding_function`.
        col.upsert(ids=[n.id for n in batch], embeddings=embs, metadatas=[n.metadata for n in batch],
                   documents=[n.body for n in batch])  # fmt: skip
    return len(nodes)


def _indexed_hashes(col: Any, where: dict[str, Any] | None = None) -> dict[str, str]:
    """id -> content hash of the records matching ``where`` (all records when None)."""
    found: dict[str, str] = {}
    offset = 0
    while True:
        res = col.get(where=where, include=["metadatas"], limit=GET_PAGE, offset=offset)
        ids = res["ids"]
        for rid, md in zip(ids, res["metadatas"] or [], strict=False):
            found[rid] = str((md or {}).get("content_hash", ""))
        if len(ids) < GET_PAGE:
            return found
        offset += GET_PAGE


def _delete_ids(col: Any, ids: list[str]) -> int:
    for batch in _batched(ids, UPSERT_BATCH * 4):
        col.delete(ids=batch)
    return len(ids)


def _delete_records(col: Any, vectors: VectorStore, ids: list[str]) -> int:
    """Delete these records from Chroma and from search's copy of the vectors; returns how many."""
    deleted = _delete_ids(col, ids)
    vectors.delete(ids)
    return deleted


@dataclass
class _Replacer:
    """Nodes to upsert and records to delete, gathered over batches of documents and sent to Chroma
    :data:`UPSERT_BATCH` records at a time."""

    col: Any
    embedder: Embedder
    vectors: VectorStore
    stats: IndexStats
    todo: list[IndexNode] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)

    def add(self, nodes: list[IndexNode], existing: dict[str, str]) -> None:
        """Upsert (in time) the nodes whose hash changed, and delete the records of the same documents that are gone."""
        todo = [n for n in nodes if existing.get(n.id) != n.metadata["content_hash"]]
        self.stats.nodes_unchanged += len(nodes) - len(todo)
        self.todo.extend(todo)
        keep = {n.id for n in nodes}
        self.gone.extend(i for i in existing if i not in keep)
        if len(self.todo) >= UPSERT_BATCH:
            self.flush()

    def flush(self) -> None:
        """Send what was gathered."""
        # Upsert before deleting so a crash in between never leaves a document unsearchable.
        self.stats.nodes_indexed += _upsert(self.col, self.embedder, self.todo, self.vectors)
        self.stats.nodes_deleted += _delete_records(self.col, self.vectors, self.gone)
        self.todo, self.gone = [], []


def sync_index(
    cfg: RunConfig,
    changed: Iterable[str],
    deleted: Iterable[str],
    *,
    docs: Mapping[str, DocUpdate] | None = None,
    read_source: SourceReader | None = None,
    embedded: Mapping[str, Any] | None = None,
) -> IndexStats:
    """Bring the index in line with the tree for these source relpaths (the caller holds the run lock).

    ``changed``: relpaths whose trees were (re)written — their records become exactly their node files
    (unchanged ones are not re-embedded). ``deleted``: relpaths whose sources disappeared — all their
    records are removed. An index of an older layout is rebuilt, an incomplete one (an interrupted
    sync or rebuild, a missing part) repaired, whatever changed; :attr:`IndexStats.notes` says so.

    ``docs``: the run's finished files in memory (relpath -> :class:`DocUpdate`), so neither node
    files nor sources are read back; a changed relpath without one is read from the tree, its
    source through ``read_source`` (default: the output's manifest). ``embedded``: vectors already
    computed for node texts (by a run's workers), used instead of embedding those texts here."""
    t0 = time.perf_counter()
    changed_l = sorted(dict.fromkeys(changed))
    deleted_l = sorted(dict.fromkeys(d for d in deleted if d not in set(changed_l)))
    stats = IndexStats(docs=len(changed_l) + len(deleted_l))
    docs = docs or {}
    reader = read_source or manifest_reader(cfg.state_dir)
    work = _needs_work(cfg)
    if work is not None:
        log.warning("%s", work[1])
        if work[0] == UPGRADE:
            done = _rebuild(cfg, reader)
            done.notes.append(work[1])
            return done
        stats.notes.append(work[1])
    elif not changed_l and not deleted_l:
        return stats
    embedder = get_embedder(cfg)
    # The run's nodes are embedded with the vectors its workers computed; the collection and the
    # state still name the embedder itself.
    upserting = Precomputed(embedder, embedded or {})
    # Incomplete before Chroma is even reached: a server that is down (or dies mid-sync) leaves the state
    # saying so, and the next run repairs every node against the tree, digests included, not only the
    # sources it sees changed (a node written during the outage had stayed stale on the server).
    write_state(cfg, complete=False, embedder=embedder)
    col = open_collection(cfg, embedder, create=True)
    vectors = vector_store(cfg)
    lex = open_lexical(cfg)
    with contextlib.closing(vectors), contextlib.closing(lex), chroma_errors(cfg), _lexical_errors(cfg):
        # A lexical store of another layout (just emptied) or a new one beside an existing collection: the
        # documents this sync leaves alone would be missing from it.
        backfill = not lex.filled and col.count() > 0
        for batch in _batched(deleted_l, IN_BATCH):
            gone = list(_indexed_hashes(col, {"doc_id": {"$in": batch}}))
            stats.nodes_deleted += _delete_records(col, vectors, gone)
            lex.delete_docs(sorted({*batch, *(doc_id_of(i) for i in gone)}))
        replacer = _Replacer(col, upserting, vectors, stats)
        for batch in _batched(changed_l, IN_BATCH):
            existing = _indexed_hashes(col, {"doc_id": {"$in": batch}})
            handed = [docs[rel] for rel in batch if rel in docs]
            nodes = [n for rel in batch for n in (docs[rel].nodes if rel in docs else doc_nodes(cfg.out, rel))]
            replacer.add(nodes, existing)
            # Lexical and Chroma writes of a batch may land in either order: a crash in between leaves the
            # state "incomplete", and the next sync or repair heals it. Many batches make one transaction.
            sources = {n.doc_id: d.source for d in handed if d.source is not None for n in d.nodes}
            update_docs(lex, nodes, {*batch, *(doc_id_of(i) for i in existing)}, sources=sources,
                        read_source=reader, commit=False)  # fmt: skip
        replacer.flush()
        lex.commit()
        if backfill and work is None:
            everything = list(tree_nodes(cfg.out))
            log.info("filling the lexical index of %s from its %d summary nodes (once)", cfg.out, len(everything))
            update_docs(lex, everything, read_source=reader)
            keep_only(lex, {n.doc_id for n in everything})
    if work is not None:
        repaired = _repair(cfg, embedder, reader)
        stats.nodes_indexed += repaired.nodes_indexed
        stats.nodes_deleted += repaired.nodes_deleted
    write_state(cfg, complete=True, embedder=embedder)
    stats.nodes_embedded_elsewhere = upserting.reused
    stats.seconds = time.perf_counter() - t0
    return stats


def _needs_work(cfg: IndexConfig) -> tuple[str, str] | None:
    """:func:`index_needs_work`, with an index of unknown layout resolved by opening its collection."""
    work = index_needs_work(cfg)
    if work is None or work[0] != UNKNOWN:
        return work
    embedder = get_embedder(cfg)
    with chroma_errors(cfg):
        col = get_collection(open_client(cfg, create=True), cfg)
    if col is not None and is_legacy(col, embedder):
        return UPGRADE, f"the search index in {cfg.out} was built by an older batchsum; rebuilding it in the new layout"
    # Current layout with its state file lost, or a foreign model (refused when the collection is opened).
    return "repair", f"the search index in {cfg.out} had no state file; checking it against the tree"


@contextlib.contextmanager
def _lexical_errors(cfg: IndexConfig) -> Iterator[None]:
    """A broken lexical database is a one-line IndexError_ naming the cure, like a broken Chroma folder; the
    system refusing the file (out of descriptors) is no damage and offers no rebuild, as for the node vectors."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if (refused := refused_error("the lexical index", lexical_path(cfg), exc)) is not None:
            raise refused from None
        raise IndexError_(
            f"lexical index in {cfg.state_dir} is unreadable ({exc}); run `{cfg.index_command('--rebuild')}`"
        ) from None


def _compare(
    cfg: IndexConfig, col: Any, nodes: list[IndexNode] | None = None
) -> tuple[IndexCheck, dict[str, IndexNode]]:
    tree = {n.id: n for n in (tree_nodes(cfg.out) if nodes is None else nodes)}
    indexed = _indexed_hashes(col, {"role": "summary"})  # facts (role: memory) are the memory's to sync
    check = IndexCheck(nodes_in_tree=len(tree), nodes_in_index=len(indexed))
    for nid, node in tree.items():
        h = indexed.get(nid)
        if h is None:
            check.missing.append(nid)
        elif h != node.metadata["content_hash"]:
            check.stale.append(nid)
    check.orphans = sorted(i for i in indexed if i not in tree)
    check.missing.sort()
    check.stale.sort()
    return check, tree


def check_index(cfg: IndexConfig) -> IndexCheck:
    """Compare the index with the Markdown tree (writes nothing; Chroma is read from a copy): missing, stale
    and orphan node ids, the parts of a built index that are gone, damaged or of another layout, and the
    sources indexed by their summaries alone (``batchsum index --check`` renders this).

    An output indexed on a Chroma server, checked without ``--chroma-host``, has its local search files
    checked (what a search without the host reads), with a warning naming the server as the store of record.
    """
    gone = missing_parts(cfg)  # named by their own paths, not the copy's
    nodes = list(tree_nodes(cfg.out))
    docs = nodes_by_doc(nodes)
    with readable_index(cfg) as readable:
        check = _check_unless_rebuilt(readable, nodes, gone)
        check.sources_not_found = sorted(_summaries_only(readable, docs))
    # A rebuild recreates the Chroma folder: its absence meanwhile is the rebuild's, not a missing part.
    check.missing_parts = [p for p in gone if not (check.rebuilding and p.startswith("the Chroma folder"))]
    check.sources = sum(1 for of_doc in docs.values() if _source_sha(of_doc))
    check.incomplete = None if check.rebuilding or gone else marked_incomplete(cfg)
    return check


def _check_unless_rebuilt(cfg: IndexConfig, nodes: list[IndexNode], gone: list[str]) -> IndexCheck:
    """The index against the tree; while a run rebuilds it (found before the comparison or after it, so one that
    began meanwhile counts), its local search files instead: Chroma is rebuilt in place, and the files search reads
    until the rebuild ends are those of before it."""
    holder = rebuilding_run(cfg)
    if holder is None:
        try:
            check = _check_all(cfg, nodes, gone)
        except IndexError_:
            if rebuilding_run(cfg) is None:
                raise
        else:
            holder = None if check.ok else rebuilding_run(cfg)
            if holder is None:
                return check
    check = _check_local(cfg, nodes)
    check.rebuilding = holder or rebuilding_run(cfg)
    return check


def _check_all(cfg: IndexConfig, nodes: list[IndexNode], gone: list[str]) -> IndexCheck:
    if any(part.startswith("the Chroma folder") for part in gone):
        # Nothing to compare against: every node of the tree is missing from the store of record.
        check = IndexCheck(nodes_in_tree=len(nodes), missing=sorted(n.id for n in nodes))
        check.damaged, check.outdated = check_lexical(cfg), lexical_outdated(cfg)
        return check
    return _check_stores(cfg, nodes)


def _check_stores(cfg: IndexConfig, nodes: list[IndexNode]) -> IndexCheck:
    remote = recorded_server(cfg)
    if remote is not None:
        log.warning(
            "the search index of %s is kept on Chroma server %s: checked its local search files only "
            "(add --chroma-host %s --chroma-port %s to check the server)",
            cfg.out, chroma_location(remote), remote.chroma_host, remote.chroma_port,
        )  # fmt: skip
        return _check_local(cfg, nodes)
    embedder = get_embedder(cfg)
    with chroma_snapshot(cfg) as snapshot:  # a check writes nothing, and Chroma writes what it opens
        col = open_collection(snapshot, embedder, create=False)
        with chroma_errors(snapshot):
            check, _ = _compare(cfg, col, nodes)
    check.damaged, check.outdated = check_lexical(cfg), lexical_outdated(cfg)
    return check


def _check_local(cfg: IndexConfig, nodes: list[IndexNode]) -> IndexCheck:
    """The tree against search's own copy of the vectors (read-only), and the lexical file's soundness."""
    tree = {n.id: n.metadata["content_hash"] for n in nodes}
    path = vectors_path(cfg)
    stored: dict[str, str] = {}
    check = IndexCheck(nodes_in_tree=len(tree))
    if path.is_file():
        try:
            with contextlib.closing(VectorStore(path, read_only=True)) as vectors:
                stored = vectors.hashes()
        except sqlite3.Error as exc:
            if (refused := refused_error("the node vectors", path, exc)) is not None:
                raise refused from None  # the system's refusal says nothing of the file: no verdict
            check.damaged.append(f"node vectors {path}: {exc}")
    check.nodes_in_index = len(stored)
    check.missing = sorted(i for i in tree if i not in stored)
    check.stale = sorted(i for i, h in tree.items() if i in stored and stored[i] != h)
    check.orphans = sorted(i for i in stored if i not in tree)
    check.damaged += check_lexical(cfg)
    check.outdated = lexical_outdated(cfg)
    return check


def _source_sha(nodes: list[IndexNode]) -> str | None:
    return next((str(n.metadata["source_sha256"]) for n in nodes if n.metadata.get("source_sha256")), None)


def _summaries_only(cfg: IndexConfig, docs: dict[str, list[IndexNode]]) -> set[str]:
    """The documents with a source whose lexical data was built without it: what it records having read."""
    path = lexical_path(cfg)
    if not path.is_file():
        return set()
    try:
        with contextlib.closing(LexicalStore(path, keep_outdated=True)) as lex:
            signatures = lex.signatures()
    except sqlite3.Error:
        return set()  # a damaged file: the check reports it
    return {
        doc for doc, nodes in docs.items() if _source_sha(nodes) and signatures.get(doc) == doc_signature(nodes, None)
    }


@contextlib.contextmanager
def _output_locked(cfg: IndexConfig, wait: bool) -> Iterator[None]:
    """Hold the output's run lock: a run writing the tree while the index is rebuilt from it would
    leave the index behind the tree (or index half-written nodes)."""
    if not cfg.out.is_dir():
        raise IndexError_(
            f"output folder {cfg.out} does not exist; run `batchsum run SOURCES --out {shlex.quote(str(cfg.out))}`"
        )
    # Before the lock, which creates the state folder: indexing a folder that holds no output (a mistyped
    # --out, the sources themselves) would write an empty index into it.
    check_output_folder(cfg)
    with RunLock(cfg.out, wait=wait):
        yield


def repair_index(cfg: IndexConfig, *, wait: bool = False, read_source: SourceReader | None = None) -> IndexStats:
    """Index missing and stale nodes and remove orphans (what plain ``batchsum index OUT`` does).

    Creates the index when the output has none yet, so it also repairs a run that crashed between
    writing the tree and indexing it; an index of an older layout is rebuilt. Takes the output's lock
    (LockedError while a run holds it, unless ``wait``). Sources come through ``read_source``
    (default: the output's manifest).
    """
    reader = read_source or manifest_reader(cfg.state_dir)
    with _output_locked(cfg, wait):
        _say_elsewhere(cfg)
        work = _needs_work(cfg)
        if work is not None and work[0] == UPGRADE:
            log.warning("%s", work[1])
            stats = _rebuild(cfg, reader)
            stats.notes.append(work[1])
            return stats
        embedder = get_embedder(cfg)
        stats = _repair(cfg, embedder, reader)
        write_state(cfg, complete=True, embedder=embedder)
        if work is not None:
            stats.notes.append(work[1])
        return stats


def _repair(cfg: IndexConfig, embedder: Embedder, read_source: SourceReader) -> IndexStats:
    t0 = time.perf_counter()
    for path in (lexical_path(cfg), vectors_path(cfg)):
        drop_leftovers(path)  # a killed rebuild's, which it left to the next run holding the lock
    col = open_collection(cfg, embedder, create=True)
    write_state(cfg, complete=False, embedder=embedder)
    with contextlib.closing(vector_store(cfg)) as vectors, chroma_errors(cfg):
        check, tree = _compare(cfg, col)
        stored = vectors.hashes()
        redo = {*check.missing, *check.stale}
        redo.update(i for i, n in tree.items() if stored.get(i) != n.metadata["content_hash"])
        todo = [tree[i] for i in sorted(redo)]
        stats = IndexStats(docs=len({n.doc_id for n in todo}))
        stats.nodes_unchanged = len(tree) - len(todo)
        stats.nodes_indexed = _upsert(col, embedder, todo, vectors)
        stats.nodes_deleted = _delete_ids(col, check.orphans)
        vectors.keep_only(set(tree))
    with contextlib.closing(open_lexical(cfg)) as lex, _lexical_errors(cfg):
        # Unchanged documents are recognized by their signature and cost no source read.
        update_docs(lex, tree.values(), read_source=read_source)
        keep_only(lex, {n.doc_id for n in tree.values()})
    stats.seconds = time.perf_counter() - t0
    return stats


def rebuild_index(cfg: IndexConfig, *, wait: bool = False, read_source: SourceReader | None = None) -> IndexStats:
    """Drop and recreate the collection, then index every node file of the tree (under the
    output's lock, like :func:`repair_index`)."""
    with _output_locked(cfg, wait):
        _say_elsewhere(cfg)
        return _rebuild(cfg, read_source or manifest_reader(cfg.state_dir))


def _say_elsewhere(cfg: IndexConfig) -> None:
    """Warn when an output kept on a Chroma server is indexed into an embedded Chroma instead."""
    remote = recorded_server(cfg)
    if remote is not None:
        log.warning(
            "the search index of %s is kept on Chroma server %s; this indexes into the embedded Chroma in %s "
            "instead (add --chroma-host %s --chroma-port %s to index on the server)",
            cfg.out, chroma_location(remote), chroma_dir(cfg), remote.chroma_host, remote.chroma_port,
        )  # fmt: skip


def _rebuild(cfg: IndexConfig, read_source: SourceReader) -> IndexStats:
    t0 = time.perf_counter()
    embedder = get_embedder(cfg)
    # Read the tree before touching the index, so a bad tree never costs the old index.
    nodes = list(tree_nodes(cfg.out))
    # Whether the local search files left in place until the new ones are whole could be searched as they are.
    searchable = completeness(cfg) is None and index_needs_work(cfg) is None
    try:
        client = open_client(cfg, create=True)
        col = get_collection(client, cfg)
    except IndexError_ as exc:
        if cfg.chroma_host or not exc.damaged:
            raise
        _move_aside(cfg)
        client = open_client(cfg, create=True)
        col = None
    # From here until the end the index is incomplete: a kill leaves the state file saying so. Search reads the
    # old local files meanwhile, and the marker tells it a rebuild is under way (not an interrupted run to repair).
    write_state(cfg, complete=False, embedder=embedder, rebuilding=searchable)
    if col is not None and not cfg.chroma_host and _only_collection(client, cfg):
        # Deleting a collection leaves its pages in chroma.sqlite3; a fresh folder gives them back.
        forget_client(chroma_dir(cfg))
        shutil.rmtree(chroma_dir(cfg))
        client = open_client(cfg, create=True)
    elif col is not None:
        client.delete_collection(cfg.collection)
    col = create_collection(client, cfg, embedder)
    stats = IndexStats(docs=len({n.doc_id for n in nodes}))
    for stale in legacy_files(cfg):
        stale.unlink(missing_ok=True)
    # Written beside the old files and swapped in whole, the lexical file and then (leaving the block) the vectors:
    # a search meanwhile reads the index of before, never an empty or growing one (a corrupt old file is replaced).
    with _vector_errors(cfg), shadow_store(vectors_path(cfg)) as vectors:
        with chroma_errors(cfg):
            stats.nodes_indexed = _upsert(col, embedder, nodes, vectors)
        with _lexical_errors(cfg):
            rebuild_lexical(cfg, nodes, read_source)
    write_state(cfg, complete=True, embedder=embedder)
    stats.seconds = time.perf_counter() - t0
    return stats


def _only_collection(client: Any, cfg: IndexConfig) -> bool:
    try:
        names = [getattr(c, "name", c) for c in client.list_collections()]
    except Exception:  # cannot tell: keep the folder
        return False
    return names == [cfg.collection]


def _move_aside(cfg: IndexConfig) -> None:
    path = chroma_dir(cfg)
    if not path.exists():
        return
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    dest = path.with_name(f"chroma.broken-{stamp}")
    forget_client(path)
    path.rename(dest)
    log.warning("moved the unreadable index %s to %s", path, dest)
