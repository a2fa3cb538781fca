"""The lexical channel of search: BM25 over each node's summary and the source text it summarizes.

Summaries drop details (a 3–7 % summary of a meeting keeps the gist, not who set up the microphones),
and a dense vector of the summary cannot find what the summary no longer says. So the words of the
source count as evidence for the nodes built from them:

* the source of every document (rendered as the run saw it: chat and subtitle files become
  ``Speaker: text`` lines) is cut into overlapping passages of :data:`PASSAGE_WORDS` words;
* every node's own summary text is cut the same way;
* a node's lexical score is the best BM25 score of its own summary passages and of the source passages
  inside the span it summarizes: an L1 its chunk (``source_span``), an L2 the chunks of its group, an
  L3 (and a single-node file) the whole source.

Scoring passages rather than whole chunks rewards query words that occur *together* (a chunk of 3,000
tokens contains most query words somewhere; a 100-word passage only where the topic is discussed).

A run hands each finished file's source text over in memory (the text its nodes' spans point into);
repair and rebuild get it from a :data:`~batchsum.index.records.SourceReader`, which returns it only
while the file still hashes to the node's ``source_sha256``; otherwise (moved, edited or deleted
source, a tree without a manifest) the node is indexed by its summary alone.

Storage: ``<out>/.batchsum/lexical-<collection>.sqlite3``, postings written in segments
(:mod:`batchsum.index.segments`), many documents per transaction (a crash leaves every document either
old or new, never half-written); ``--rebuild`` builds a fresh file beside it and swaps it in with an
atomic rename. Like the token cache it is derived data.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import re
import sqlite3
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.errors import IndexError_
from batchsum.index.analysis import function_words, query_groups, snowball_name, term_languages
from batchsum.index.embed import STOPWORDS
from batchsum.index.passages import PASSAGE_STRIDE as PASSAGE_STRIDE
from batchsum.index.passages import PASSAGE_WORDS as PASSAGE_WORDS
from batchsum.index.passages import doc_passages
from batchsum.index.passages import passages as passages
from batchsum.index.passages import stem as stem
from batchsum.index.passages import tokenize as tokenize
from batchsum.index.postings import merged_postings as merged_postings
from batchsum.index.postings import own_stemmed
from batchsum.index.proximity import pack_sequence, proximity_bonus
from batchsum.index.rollup import ROLLUP_OTHERS as ROLLUP_OTHERS
from batchsum.index.rollup import ROLLUP_PASSAGES as ROLLUP_PASSAGES
from batchsum.index.rollup import function_words_held, query_windows, rollups
from batchsum.index.segments import (
    SEGMENT_POSTINGS,
    SEGMENT_SCHEMA,
    SegmentBuffer,
    delete_postings,
    merge_small,
    next_segment,
    write_segment,
)
from batchsum.index.state import drop_leftovers, lexical_path
from batchsum.model import doc_id_of
from batchsum.tree import atomic_target

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.records import IndexNode, SourceReader

log = logging.getLogger(__name__)

# Bumped whenever the stored terms of a text change (an index is then rebuilt); each bump's reason is in git.
LEX_SCHEMA = 21
BM25_K1 = 1.2
BM25_B = 0.75
COMMIT_CHARS = 8_000_000  # text per lexical transaction (and segment), at most
TOP_UNITS = 100  # best passages whose documents get node scores (plus the documents the dense channel found)


def another_layout(schema: str | None) -> bool:
    """Whether a lexical file recording ``schema`` holds another batchsum version's layout (None: a new file)."""
    return schema not in (None, str(LEX_SCHEMA))


def layout_of(db: sqlite3.Connection) -> str | None:
    """The layout a lexical file (open as ``db``) records, None when it records none."""
    try:
        row = db.execute("SELECT value FROM lex_meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:  # no lex_meta table yet
        return None
    return None if row is None else str(row[0])


def layout_note(path: Path, repair: str) -> str:
    """What to say of the lexical index at ``path`` of another layout (:func:`another_layout`): search never reads
    it as current, it searches by meaning only until ``repair`` (the command) rewrites it."""
    return (f"lexical index {path} has another layout (another batchsum version); searching by meaning only "
            f"until `{repair}` rewrites it")  # fmt: skip


# Words that say what the asker wants done, not what the text is about ("summarize the discussion
# about ..."); in a transcript they match filler talk. Used for queries only.
QUERY_STOPWORDS = frozenset(
    "summarize summarise summary discuss discussed discussing discussion discussions talk talked talking"
    " think thought say said saying mention opinion opinions tell told explain happen happens happened happening"
    # "What happened", "what did I do" and question words, which Snowball's lists keep ("Wann war ich in Lissabon?"
    # had ranked an entry holding "wann" first, "what happened in March 2024?" texts holding "happened").
    " wann warum wieso weshalb passiert passierte geschah gemacht gesagt besprochen"
    " quand pourquoi passé arrivé fait dit parlé qu'est s'est c'est"
    " cuándo dónde porqué pasó ocurrió hice hizo hicimos dijo hablamos"
    " случилось произошло происходило делал делала делали сделал сделала"
    # Chinese, Japanese and Korean ones are cut out of their run before its bigrams (analysis._phrased).
    " 发生了什么 发生了 发生 我做了什么 做了什么 干了什么 有什么 什么 何がありましたか 何が起きましたか 何をしましたか"
    " 出来事 무슨 일이 있었나요 있었어요 있었어".split()
)


def query_languages(query: str, languages: Iterable[str | None]) -> dict[str, set[str | None]]:
    """The languages whose analysis made each stem of the query (:func:`~batchsum.index.analysis.term_languages`)."""
    return term_languages(query, languages)


def query_tokens(query: str, languages: Iterable[str | None] = (None,)) -> list[list[str]]:
    """The query's term groups (:func:`~batchsum.index.analysis.query_groups`) minus words that only phrase
    the request ("summarize", "discuss"), unless nothing else is left."""
    return query_groups(query, languages, QUERY_STOPWORDS)


def unheld_words(query: str, languages: Iterable[str | None] = (None,)) -> list[list[str]]:
    """The query's own words no index term can be, one group each: a word of one letter or digit ("C++" is "c",
    "x"), which the analysis drops; not a function word, which every passage counts as holding. A query of
    nothing else asks for words the corpus lacks (scored as such), not for its meaning alone."""
    stops = STOPWORDS.union(*(function_words(snowball_name(lang)) for lang in languages))
    words = re.findall(r"[^\W_]+(?:'[^\W_]+)?", query.lower())
    return [[w] for w in dict.fromkeys(words) if len(w) == 1 and w not in stops]


# -- the store -----------------------------------------------------------------------------------------


@dataclass
class LexFilter:
    """What a search is restricted to (mirrors the Chroma ``where`` clauses of the dense channel)."""

    level: str | None = None  # "1", "2", "3", "final" or "period" (level 4)
    content_type: str | None = None
    since_ts: int | None = None
    sources: set[str] | None = None
    later: frozenset[str] = frozenset()  # sources that cover a day on or after since_ts, whatever their date

    def admits(self, level: int, is_final: bool, content_type: str | None, doc_ts: int | None, source: str) -> bool:
        """True when a node with these attributes passes the filter."""
        if self.level == "final" and not is_final:
            return False
        if self.level not in (None, "final") and level != (4 if self.level == "period" else int(str(self.level))):
            return False
        if self.content_type is not None and (content_type != self.content_type or level == 4):
            return False  # a digest (level 4) is no source, whatever type its text was read as
        if self.since_ts is not None and source not in self.later and (doc_ts is None or doc_ts < self.since_ts):
            return False
        return self.sources is None or source in self.sources


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS lex_meta (key TEXT PRIMARY KEY, value TEXT)",
    # units / total_len: this document's passages and their words, for BM25's N and average length.
    # lens / nkeys / starts: per passage (numbered from 0), its word count, the node of a summary passage
    # (-1 for a source passage) and its char offset, as packed int32 arrays. terms: the document's
    # distinct terms (zlib), to delete its postings without a second index on them. seq: its terms in
    # order as numbers into that sorted list, and spans: each passage's range in seq as int32 (start, stop)
    # pairs, for the proximity score (:mod:`batchsum.index.proximity`). seg: the segment holding its postings.
    # title: a Markdown page's title terms, one per line (:func:`batchsum.index.passages.page_title`).
    # AUTOINCREMENT: a key is never reused, so a document dropped from the unwritten segment cannot take
    # the postings of a later document with its key along.
    "CREATE TABLE IF NOT EXISTS lex_docs (dkey INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL UNIQUE,"
    " sig TEXT NOT NULL, units INTEGER NOT NULL, total_len INTEGER NOT NULL, lens BLOB, nkeys BLOB, starts BLOB,"
    " terms BLOB, lang TEXT, seq BLOB, spans BLOB, seg INTEGER, title TEXT)",
    "CREATE TABLE IF NOT EXISTS lex_nodes (nkey INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, dkey INTEGER NOT NULL,"
    " start INTEGER, stop INTEGER, level INTEGER, is_final INTEGER, content_type TEXT, doc_ts INTEGER, source TEXT)",
    "CREATE INDEX IF NOT EXISTS lex_nodes_doc ON lex_nodes (dkey)",
    # One row per (term, segment): the term's postings in the segment's documents (about 3 bytes a
    # posting, 8 a document). A rowid table: its rows hold ~4 KB in-page where a WITHOUT ROWID table
    # spills anything over ~1 KB into overflow pages.
    *SEGMENT_SCHEMA,
)
_UID_SHIFT = 1 << 32


@dataclass
class Evidence:
    """Where a node's best lexical passage is: its own summary, or the source at char ``start``."""

    in_source: bool
    start: int
    coverage: float = 0.0  # share of the query's weight (idf) whose terms the passage holds, 0..1


def _doc_lengths(db: sqlite3.Connection, dkeys: list[int]) -> dict[int, Any]:
    """dkey -> the length of each of its passages."""
    import numpy as np

    rows = _rows_in(db, "SELECT dkey, lens FROM lex_docs WHERE dkey IN ({})", [int(d) for d in dkeys])
    return {int(dkey): np.frombuffer(blob or b"", dtype=np.int32) for dkey, blob in rows}


def _doc_layout(db: sqlite3.Connection, dkeys: list[int]) -> dict[int, tuple[Any, Any]]:
    """dkey -> (node key per passage, char offset per passage)."""
    import numpy as np

    rows = _rows_in(db, "SELECT dkey, nkeys, starts FROM lex_docs WHERE dkey IN ({})", dkeys)
    return {
        int(dkey): (np.frombuffer(nk or b"", dtype=np.int32), np.frombuffer(st or b"", dtype=np.int32))
        for dkey, nk, st in rows
    }


def _terms_of(blob: bytes | None) -> list[str]:
    """A document's distinct terms, as ``lex_docs.terms`` packs them."""
    return zlib.decompress(blob).decode("utf-8", errors="surrogatepass").split("\n") if blob else []


_DOC_IDS = "SELECT doc_id FROM lex_docs WHERE dkey IN ({})"


def _rows_in(db: sqlite3.Connection, sql: str, keys: Sequence[Any]) -> Iterator[Any]:
    """The rows of ``sql`` (whose ``IN ({})`` takes the keys) for every key, 500 at a time (SQLite's limit)."""
    for start in range(0, len(keys), 500):
        part = list(keys[start : start + 500])
        yield from db.execute(sql.format(",".join("?" * len(part))), part)


class LexicalStore:
    """BM25 passages, postings and node spans of one output folder (see the module docstring)."""

    def __init__(self, path: Path, *, keep_outdated: bool = False) -> None:
        """Open (or create) the store; data of another layout is dropped, or with ``keep_outdated`` left
        untouched and flagged by :attr:`outdated` (a search must not empty what only an index run refills)."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Profiled on 10,000 short notes: a document's ~100 postings land at random places of the (term,
        # document) index, and SQLite's default 2 MB page cache re-reads and re-writes its pages at every
        # commit; a 64 MB cache (an upper bound, taken only as the index grows) cut the lexical writes by a fifth.
        self._db.execute("PRAGMA cache_size=-65536")
        schema = layout_of(self._db)
        other_layout = another_layout(schema)
        # False when this open created the store or emptied one of another layout: a sync that only
        # writes the documents it changed must then fill in all the others (see ``index.store.sync_index``).
        self.filled = schema == str(LEX_SCHEMA)
        self.outdated = other_layout and keep_outdated
        # Filled by :meth:`scores`: the reference score of the last query (a passage holding each query
        # term once, at average length), where each scored node's best passage is, and each scored
        # document's rollup (doc id -> its best passage score plus a share of its next best ones).
        self.last_reference = 0.0
        self.last_evidence: dict[str, Evidence] = {}
        self.last_rollup: dict[str, float] = {}
        self.last_complete, self.last_phrased, self.last_titled = set[str](), set[str](), set[str]()  # see rollups
        self.last_own_stemmed = set[str]()  # documents holding the query's own stems (:func:`own_stemmed`)
        self.last_weights: dict[tuple[str, ...], float] = {}  # each query group's idf
        self._langs: dict[int, str | None] | None = None
        # Postings of the documents written since the last commit, and the segment they will form.
        self._buffer = SegmentBuffer()
        self._seg: int | None = None
        self.pending_chars = 0  # text written since the last commit (update_docs bounds a transaction by it)
        if self.outdated:
            return
        with self._db:
            if other_layout:
                # Another layout of derived data: start empty; `batchsum index OUT` fills it again.
                for table in ("lex_postings", "lex_segs", "lex_nodes", "lex_units", "lex_docs", "lex_meta"):
                    self._db.execute(f"DROP TABLE IF EXISTS {table}")
            for stmt in _SCHEMA:
                self._db.execute(stmt)
            self._db.execute("INSERT OR IGNORE INTO lex_meta VALUES ('schema', ?)", (str(LEX_SCHEMA),))
        if other_layout:
            self._db.execute("VACUUM")  # give the old layout's pages back to the file system

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def commit(self) -> None:
        """Commit the documents written since the last commit (:meth:`write_doc` leaves that to its caller):
        their postings become a segment, and small segments are merged."""
        if self._seg is not None:
            write_segment(self._db, self._seg, self._buffer)
            self._buffer.clear()
            self._seg = None
            merge_small(self._db)
        self.pending_chars = 0
        self._db.commit()

    def rollback(self) -> None:
        """Drop the documents written since the last commit."""
        self._buffer.clear()
        self._seg = None
        self.pending_chars = 0
        self._db.rollback()

    @property
    def full(self) -> bool:
        """True when the open transaction holds enough to commit (text or postings: memory stays bounded)."""
        return self.pending_chars > COMMIT_CHARS or len(self._buffer) >= SEGMENT_POSTINGS

    def fold_wal(self) -> None:
        """Fold the write-ahead log into the database file and stop using one: the file alone is the index."""
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.execute("PRAGMA journal_mode=DELETE")

    # -- writing ---------------------------------------------------------------------------------------

    def signatures(self, doc_ids: Iterable[str] | None = None) -> dict[str, str]:
        """doc id -> signature of what is indexed (all documents when ``doc_ids`` is None)."""
        if doc_ids is None:
            return dict(self._db.execute("SELECT doc_id, sig FROM lex_docs"))
        return dict(_rows_in(self._db, "SELECT doc_id, sig FROM lex_docs WHERE doc_id IN ({})", list(doc_ids)))

    def write_doc(self, doc_id: str, sig: str, nodes: Sequence[IndexNode], source: str | None) -> None:
        """Make ``doc_id``'s lexical data exactly these nodes (and source passages), inside the caller's transaction
        (many small documents, one commit)."""
        from array import array

        doc = doc_passages(nodes, source)
        spans, units = doc.spans, doc.units
        self._delete_docs([doc_id])
        if self._seg is None:
            self._seg = next_segment(self._db)
        cur = self._db.execute(
            "INSERT INTO lex_docs (doc_id, sig, units, total_len, lang, seg, title) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc_id, sig, len(units), sum(sum(c.values()) for _, _, c in units), snowball_name(doc.language),
             self._seg, "\n".join(sorted(doc.title))),
        )  # fmt: skip
        dkey = int(cur.lastrowid or 0)
        nkeys: dict[str, int] = {}
        for n in nodes:
            m = n.metadata
            start, stop = spans.get(n.id) or (None, None)
            cur = self._db.execute(
                "INSERT INTO lex_nodes (id, dkey, start, stop, level, is_final, content_type, doc_ts, source)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (n.id, dkey, start, stop, int(m.get("level", 3)), int(bool(m.get("is_final"))),
                 m.get("content_type"), m.get("doc_ts") if m.get("dated") else None,
                 str(m.get("source_path", doc_id))),
            )  # fmt: skip
            nkeys[n.id] = int(cur.lastrowid or 0)
        self._buffer.add(dkey, [c for _, _, c in units])
        self.pending_chars += len(source or "") + sum(len(n.body) for n in nodes)
        lens = array("i", [sum(c.values()) for _, _, c in units])
        owners = array("i", [nkeys[nid] if nid is not None else -1 for nid, _, _ in units])
        starts = array("i", [off for _, off, _ in units])
        vocabulary = sorted({t for _, _, c in units for t in c})
        term_number = {t: i for i, t in enumerate(vocabulary)}
        packed_terms = zlib.compress("\n".join(vocabulary).encode("utf-8", errors="surrogatepass"))
        self._db.execute(
            "UPDATE lex_docs SET lens = ?, nkeys = ?, starts = ?, terms = ?, seq = ?, spans = ? WHERE dkey = ?",
            (lens.tobytes(), owners.tobytes(), starts.tobytes(), packed_terms,
             pack_sequence([term_number[t] for t in doc.order]), array("i", doc.ranges).tobytes(), dkey),
        )  # fmt: skip

    def delete_docs(self, doc_ids: Sequence[str]) -> None:
        """Forget these documents entirely (and commit what was written before)."""
        try:
            self._delete_docs(doc_ids)
            self.commit()
        except BaseException:
            self.rollback()
            raise

    def _delete_docs(self, doc_ids: Sequence[str]) -> None:
        written: list[tuple[int, int, list[str]]] = []  # (key, segment, terms) of documents in a written segment
        for d in doc_ids:
            row = self._db.execute("SELECT dkey, terms, seg FROM lex_docs WHERE doc_id = ?", (d,)).fetchone()
            if row is None:
                continue
            dkey, blob, seg = row
            if seg is not None and seg == self._seg:
                self._buffer.drop(int(dkey))
            elif seg is not None and blob:
                written.append((int(dkey), int(seg), _terms_of(blob)))
            for table in ("lex_nodes", "lex_docs"):
                self._db.execute(f"DELETE FROM {table} WHERE dkey = ?", (dkey,))
        delete_postings(self._db, written)

    def node_ids(self) -> set[str]:
        """Every node id with lexical data."""
        return {r[0] for r in self._db.execute("SELECT id FROM lex_nodes")}

    # -- searching -------------------------------------------------------------------------------------

    def languages(self) -> list[str | None]:
        """The Snowball languages of the indexed documents (None: analysed by script)."""
        return [r[0] for r in self._db.execute("SELECT DISTINCT lang FROM lex_docs")]

    def _doc_languages(self) -> dict[int, str | None]:
        if self._langs is None:
            self._langs = {int(d): lang for d, lang in self._db.execute("SELECT dkey, lang FROM lex_docs")}
        return self._langs

    def scores(
        self,
        groups: Sequence[Sequence[str]],
        filt: LexFilter,
        focus_docs: Iterable[str] = (),
        made_by: Mapping[str, set[str | None]] | None = None,
        span: int = 1,
        siblings: frozenset[str] = frozenset(),
    ) -> dict[str, float]:
        """BM25 score (node id -> score) of the nodes of every document among the :data:`TOP_UNITS` best passages,
        and of ``focus_docs`` (the dense channel's); each group of terms is one query term (:func:`query_groups`), a
        passage scores as its window of ``span`` (:func:`query_windows`); ``siblings``: see :func:`own_stemmed`. Sets
        :attr:`last_reference` etc."""
        import numpy as np

        self.last_reference, self.last_evidence, self.last_rollup, self.last_weights = 0.0, {}, {}, {}
        self.last_complete, self.last_phrased, self.last_titled, self.last_own_stemmed = set(), set(), set(), set()
        counts = Counter(tuple(g) for g in groups if g)
        n_units, total, units_by_lang = _document_totals(self._db)
        if not counts or not n_units:
            return {}
        avgdl = max(float(total) / float(n_units), 1e-9)
        # Postings first, per group: rows of (document, passages, tfs). Passage lengths come per document below.
        found: list[tuple[list[tuple[int, Any, Any]], float]] = []
        groups_found: list[tuple[Sequence[str], float]] = []
        reference = 0.0
        for group, qtf in counts.items():
            langs = self._doc_languages() if made_by is not None and any(t in made_by for t in group) else None
            rows = merged_postings(self._db, group, made_by, langs)  # rows of (document, passages, tfs)
            n = _passages_holding(rows, group, made_by, units_by_lang)
            idf = math.log(1.0 + (n_units - n + 0.5) / (n + 0.5))
            # A query word the corpus lacks still counts in the reference: it is part of what was asked.
            reference += qtf * idf
            self.last_weights[group] = idf
            if rows:
                found.append((rows, qtf * idf))
                groups_found.append((group, qtf * idf))
        self.last_reference = reference
        if not found:
            return {}
        lens = _doc_lengths(self._db, sorted({d for rows, _ in found for d, _, _ in rows}))
        uid_parts, weights, held = [], [], []
        for gi, (rows, w) in enumerate(found):
            units = np.concatenate([u for _, u, _ in rows]).astype(np.int64)
            tf = np.concatenate([f for _, _, f in rows]).astype(np.float64)
            dl = np.concatenate([lens[d][u] for d, u, _ in rows]).astype(np.float64)
            dks = np.repeat(np.array([d for d, _, _ in rows], dtype=np.int64), [len(u) for _, u, _ in rows])
            uid_parts.append(dks * _UID_SHIFT + units)
            weights.append(w * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl)))
            held.append(np.full(len(units), gi))
        uids, inverse = np.unique(np.concatenate(uid_parts), return_inverse=True)
        unit_score = np.zeros(len(uids), dtype=np.float64)
        np.add.at(unit_score, inverse.reshape(-1), np.concatenate(weights))
        holds = np.zeros((len(uids), len(found)), dtype=bool)  # which query groups each passage holds
        holds[inverse.reshape(-1), np.concatenate(held)] = True
        dkeys = self._pool(uids, unit_score, list(focus_docs))
        bonus, phrased = proximity_bonus(
            self._db, uids, sorted(dkeys), groups_found, made_by, (avgdl, BM25_K1, BM25_B), _UID_SHIFT
        )
        unit_score, holds, phrased = query_windows(
            uids, _UID_SHIFT, (span, dkeys, lambda d: _doc_layout(self._db, d)), unit_score + bonus, holds, phrased
        )
        coverage = holds @ (np.array([w for _, w in found], dtype=np.float64) / reference)
        holds |= function_words_held(uids // _UID_SHIFT, groups_found, made_by, self._doc_languages)
        self.last_titled = _titled(self._db, sorted(dkeys), [g for g, _ in groups_found])
        own = own_stemmed(self._db, [g for g, _ in groups_found], siblings, made_by, self._doc_languages)
        self.last_own_stemmed = {str(r[0]) for r in _rows_in(self._db, _DOC_IDS, sorted(own & dkeys))}
        return self._node_scores(uids, unit_score, (coverage, holds, phrased), filt, dkeys)

    def _pool(self, uids: Any, unit_score: Any, focus: list[str]) -> set[int]:
        """The documents whose nodes get scores: those of the :data:`TOP_UNITS` best passages, and ``focus``."""
        import numpy as np

        top = np.argsort(-unit_score)[:TOP_UNITS]
        dkeys = {int(d) for d in (uids[top] // _UID_SHIFT).tolist()}
        dkeys.update(int(r[0]) for r in _rows_in(self._db, "SELECT dkey FROM lex_docs WHERE doc_id IN ({})", focus))
        return dkeys

    def _node_scores(
        self, uids: Any, unit_score: Any, held: tuple[Any, Any, Any], filt: LexFilter, dkeys: set[int]
    ) -> dict[str, float]:
        import numpy as np

        doc_of = uids // _UID_SHIFT
        keep = np.isin(doc_of, np.fromiter(dkeys, dtype=np.int64, count=len(dkeys)))
        uids, unit_score, doc_of, coverage, holds, phrased = (a[keep] for a in (uids, unit_score, doc_of, *held))
        numbers = uids % _UID_SHIFT
        layout = _doc_layout(self._db, sorted(dkeys))
        owner = np.zeros(len(uids), dtype=np.int64)
        offset = np.zeros(len(uids), dtype=np.int64)
        for d in np.unique(doc_of).tolist():
            sel = doc_of == d
            owner[sel] = layout[d][0][numbers[sel]]
            offset[sel] = layout[d][1][numbers[sel]]
        best: dict[str, float] = {}
        evidence = self.last_evidence
        nodes = self._nodes_of(sorted(dkeys))
        by_nkey = {row[0]: row for row in nodes if filt.admits(int(row[5]), bool(row[6]), row[7], row[8], row[9])}
        # Summary passages score their own node.
        own = owner >= 0
        for nkey, score, off, cov in zip(owner[own].tolist(), unit_score[own].tolist(), offset[own].tolist(),
                                         coverage[own].tolist(), strict=True):  # fmt: skip
            row = by_nkey.get(nkey)
            if row is not None and score > best.get(row[1], 0.0):
                best[row[1]] = score
                evidence[row[1]] = Evidence(False, int(off), cov)
        _best_source_passages(by_nkey.values(), doc_of[~own], offset[~own], unit_score[~own], coverage[~own],
                              best, evidence)  # fmt: skip
        doc_ids = {int(row[2]): doc_id_of(str(row[1])) for row in by_nkey.values()}
        self.last_rollup, self.last_complete, self.last_phrased = rollups(doc_of, unit_score, holds, phrased, doc_ids)
        return best

    def _nodes_of(self, dkeys: list[int]) -> list[tuple[Any, ...]]:
        sql = "SELECT nkey, id, dkey, start, stop, level, is_final, content_type, doc_ts, source FROM lex_nodes"
        return list(_rows_in(self._db, sql + " WHERE dkey IN ({})", dkeys))

    def days_written(self, start_ts: int, stop_ts: int) -> Iterator[tuple[str, int, list[str]]]:
        """(source, date, day terms: :func:`~batchsum.index.analysis.day_term`) of each document dated in the span."""
        sql = "SELECT n.source, MIN(n.doc_ts), d.terms FROM lex_nodes n JOIN lex_docs d ON d.dkey = n.dkey"
        for source, ts, blob in self._db.execute(sql + " WHERE n.doc_ts >= ? AND n.doc_ts < ? GROUP BY n.dkey",
                                                 (start_ts, stop_ts)):  # fmt: skip
            yield str(source), int(ts), [t for t in _terms_of(blob) if t.startswith("--")]


def _passages_holding(
    rows: list[tuple[int, Any, Any]],
    group: Sequence[str],
    made_by: Mapping[str, set[str | None]] | None,
    units_by_lang: Mapping[str | None, int],
) -> int:
    """How many passages hold a query group (its document frequency): its postings' (``rows``), and every
    passage of a language in which it is a function word: not indexed there, but in nearly all of them.
    Else French "que", found only where a Russian text quotes French, would weigh as a name does."""
    n = sum(len(u) for _, u, _ in rows)
    if made_by and any(t in made_by for t in group):
        made = set().union(*(made_by.get(t, set()) for t in group))
        n += sum(units for lang, units in units_by_lang.items() if lang not in made)
    return n


def _titled(db: sqlite3.Connection, dkeys: list[int], groups: list[Sequence[str]]) -> set[str]:
    """The doc ids among ``dkeys`` whose page title holds a term of every group."""
    sql = "SELECT doc_id, title FROM lex_docs WHERE title != '' AND dkey IN ({})"
    return {doc for doc, title in _rows_in(db, sql, dkeys) if all(set(g) & set(title.split("\n")) for g in groups)}


def _document_totals(db: sqlite3.Connection) -> tuple[float, float, dict[str | None, int]]:
    """Passages, their total length, and passages per Snowball language of the indexed documents: one scan."""
    rows = db.execute("SELECT lang, TOTAL(units), TOTAL(total_len) FROM lex_docs GROUP BY lang").fetchall()
    return sum(r[1] for r in rows), sum(r[2] for r in rows), {lang: int(units) for lang, units, _ in rows}


def _best_source_passages(
    nodes: Iterable[tuple[Any, ...]],
    doc: Any,
    offset: Any,
    score: Any,
    coverage: Any,
    best: dict[str, float],
    evidence: dict[str, Evidence],
) -> None:
    """Source passages (document, char offset, score, coverage) score every node whose span holds them:
    raise ``best`` (and set ``evidence``) of each node in ``nodes`` (lex_nodes rows) whose best passage
    beats it. Per document the passages are sorted by offset, so a node's passages are one slice."""
    import numpy as np

    per_doc: dict[int, tuple[Any, Any, Any]] = {}
    by_pos = np.lexsort((offset, doc))
    doc, offset, score, coverage = doc[by_pos], offset[by_pos], score[by_pos], coverage[by_pos]
    bounds = np.flatnonzero(np.diff(doc)) + 1
    for idx in np.split(np.arange(len(doc)), bounds):
        if len(idx):
            per_doc[int(doc[idx[0]])] = (offset[idx], score[idx], coverage[idx])
    for row in nodes:
        _, nid, dkey, s, e = row[:5]
        got = per_doc.get(int(dkey))
        if s is None or e is None or got is None:
            continue
        offs, scores, covs = got
        lo, hi = int(np.searchsorted(offs, s, "left")), int(np.searchsorted(offs, e, "left"))
        if hi > lo:
            i = lo + int(np.argmax(scores[lo:hi]))
            if float(scores[i]) > best.get(nid, 0.0):
                best[nid] = float(scores[i])
                evidence[nid] = Evidence(True, int(offs[i]), float(covs[i]))


def open_lexical(cfg: IndexConfig) -> LexicalStore:
    """The lexical store of this output and collection (created when absent)."""
    path = lexical_path(cfg)
    try:
        return LexicalStore(path)
    except sqlite3.Error as exc:
        raise IndexError_(
            f"lexical index {path} is unreadable ({exc}); run `{cfg.index_command('--rebuild')}`"
        ) from None


def doc_signature(nodes: Sequence[IndexNode], source_sha: str | None) -> str:
    """What a document's lexical data was built from: its nodes' content hashes and the source used."""
    parts = sorted(f"{n.id}\0{n.metadata.get('content_hash', '')}" for n in nodes)
    parts.append(f"source\0{source_sha or ''}")
    return hashlib.sha256("\n".join(parts).encode("utf-8", errors="surrogatepass")).hexdigest()


def nodes_by_doc(nodes: Iterable[IndexNode]) -> dict[str, list[IndexNode]]:
    """``nodes`` grouped by their document, in their order."""
    out: dict[str, list[IndexNode]] = {}
    for n in nodes:
        out.setdefault(n.doc_id, []).append(n)
    return out


def update_docs(
    store: LexicalStore,
    nodes: Iterable[IndexNode],
    docs: Iterable[str] = (),
    *,
    sources: Mapping[str, str | None] | None = None,
    read_source: SourceReader | None = None,
    commit: bool = True,
) -> int:
    """Bring these documents' lexical data in line with their nodes; return how many were rewritten.

    ``docs`` names documents to sync even when they have no nodes left (their data is removed).
    A document's source text comes from ``sources`` (doc id -> text, handed over by a run) or else
    from ``read_source``; without either it is indexed by its summaries alone. Without ``commit`` the
    last documents stay in the open transaction, so a caller syncing batch after batch commits (and
    writes a segment) once per :data:`COMMIT_CHARS` or :data:`~batchsum.index.segments.SEGMENT_POSTINGS`.
    """
    sources = sources or {}
    grouped = nodes_by_doc(nodes)
    wanted = sorted(set(grouped) | set(docs))
    known = store.signatures(wanted)
    gone = [d for d in wanted if d not in grouped and d in known]
    if gone:
        store.delete_docs(gone)
    written = 0
    try:
        for doc_id in wanted:
            doc_nodes = grouped.get(doc_id)
            if not doc_nodes:
                continue
            sha = next((str(n.metadata["source_sha256"]) for n in doc_nodes if n.metadata.get("source_sha256")), None)
            # Same nodes as indexed (with or without their source): skip without reading or hashing the source.
            if known.get(doc_id) in (doc_signature(doc_nodes, sha), doc_signature(doc_nodes, None)):
                continue
            if doc_id in sources:
                text = sources[doc_id]
            else:
                rel = str(doc_nodes[0].metadata.get("source_path") or doc_id)
                text = read_source(rel, sha) if read_source is not None and sha else None
            sig = doc_signature(doc_nodes, sha if text is not None else None)
            # Many documents per transaction (a commit per small journal entry cost more than indexing
            # it); still all-or-nothing per document, and bounded so memory does not follow the corpus.
            store.write_doc(doc_id, sig, doc_nodes, text)
            written += 1
            if store.full:
                store.commit()
        if commit:
            store.commit()
    except BaseException:
        store.rollback()
        raise
    return written


def keep_only(store: LexicalStore, doc_ids: set[str]) -> int:
    """Remove every document not in ``doc_ids``; return how many went."""
    gone = [d for d in store.signatures() if d not in doc_ids]
    store.delete_docs(gone)
    return len(gone)


def rebuild(cfg: IndexConfig, nodes: Sequence[IndexNode], read_source: SourceReader | None) -> None:
    """Build the lexical index of ``nodes`` into a fresh file and atomically swap it in."""
    path = lexical_path(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    drop_leftovers(path)
    with atomic_target(path) as tmp:
        store = LexicalStore(tmp)  # sqlite takes the empty temp file as an empty database
        try:
            update_docs(store, nodes, read_source=read_source)
            store.fold_wal()  # only the one file moves
        finally:
            store.close()
        # The old database's WAL and shared-memory files belong to the old file: drop them first.
        for side in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(path) + side)
