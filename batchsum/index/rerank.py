"""Rerankers: score (query, summary) pairs more finely than the bi-encoder retrieval did.

Default: late interaction (ColBERT-style MaxSim) over the contextual token vectors of the packaged
MiniLM model — each query token takes its best-matching summary token, scores are averaged — so it
works offline with nothing extra installed. ``--reranker PATH``: an ONNX cross-encoder (e.g.
ms-marco-MiniLM-L-6-v2 exported to ONNX) with its ``tokenizer.json`` beside it; a long summary is
scored window by window and keeps its best window. Raw scores are returned; the search normalizes
them by min–max.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from batchsum.errors import ConfigError
from batchsum.index.embed import default_threads


class Reranker(Protocol):
    """Scores documents against a query; higher is more relevant."""

    name: str

    def score(self, query: str, docs: Sequence[str], keys: Sequence[str] | None = None) -> np.ndarray: ...


def quantize(vectors: np.ndarray) -> tuple[bytes, bytes]:
    """int8 with one float32 scale per row (unit vectors lose < 0.5 % of a cosine)."""
    scale = np.abs(vectors).max(axis=1, keepdims=True) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.round(vectors / scale).astype(np.int8)
    return q.tobytes(), scale.tobytes()


def dequantize(n: int, q: bytes, scale: bytes, dim: int) -> np.ndarray:
    """Inverse of :func:`quantize`."""
    arr = np.frombuffer(q, dtype=np.int8).reshape(n, dim).astype(np.float32)
    return arr * np.frombuffer(scale, dtype=np.float32).reshape(n, 1)


@dataclass
class TokenRow:
    """What search needs of one indexed node without asking Chroma for its metadata."""

    content_hash: str
    doc_ts: int | None
    vectors: np.ndarray  # MaxSim token vectors
    embedding: np.ndarray  # the text vector (as in Chroma), for MMR


class TokenStore:
    """Per-node token vectors and recency date, keyed by node id (``<out>/.batchsum/tokvecs-<collection>.sqlite3``).

    Indexing computes the token vectors for free (the same forward pass as the text vector). Keeping
    them here makes the MaxSim rerank a lookup instead of a model run per candidate, and keeping the
    date here spares a metadata fetch per candidate (the slow part of a Chroma query). Rows are written
    before their Chroma records and deleted with them; a missing row is computed on the fly.
    """

    def __init__(self, path: Path, dim: int) -> None:
        self.path = path
        self.dim = dim
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS nodes_v2 (id TEXT PRIMARY KEY, hash TEXT, doc_ts INTEGER,"
            " n INTEGER, q BLOB, s BLOB, e BLOB, es BLOB)"
        )
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def get_many(self, ids: Sequence[str]) -> dict[str, TokenRow]:
        """Rows of the ids that are present."""
        found: dict[str, TokenRow] = {}
        uniq = list(dict.fromkeys(ids))
        for start in range(0, len(uniq), 500):
            part = uniq[start : start + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT id, hash, doc_ts, n, q, s, e, es FROM nodes_v2 WHERE id IN ({marks})"
            for nid, h, ts, n, q, sc, e, es in self._db.execute(sql, part):
                emb = dequantize(1, e, es, self.dim)[0]
                found[nid] = TokenRow(h, ts, dequantize(int(n), q, sc, self.dim), emb)
        return found

    def put_many(self, items: Sequence[tuple[str, TokenRow]]) -> None:
        """Store (node id, row) pairs."""
        rows = [
            (nid, r.content_hash, r.doc_ts, len(r.vectors), *quantize(r.vectors), *quantize(r.embedding[None, :]))
            for nid, r in items
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO nodes_v2 VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def delete(self, ids: Sequence[str]) -> None:
        """Forget these node ids."""
        with self._db:
            self._db.executemany("DELETE FROM nodes_v2 WHERE id = ?", [(i,) for i in ids])

    def hashes(self) -> dict[str, str]:
        """node id -> content hash of every row."""
        return {nid: h for nid, h in self._db.execute("SELECT id, hash FROM nodes_v2")}

    def keep_only(self, ids: set[str]) -> int:
        """Delete every row whose id is not in ``ids``; return how many went."""
        gone = [i for i in self.hashes() if i not in ids]
        self.delete(gone)
        return len(gone)

    def clear(self) -> None:
        """Delete everything."""
        with self._db:
            self._db.execute("DELETE FROM nodes_v2")


def maxsim(query_vectors: np.ndarray, doc_vectors: Sequence[np.ndarray]) -> np.ndarray:
    """Mean over query tokens of the best cosine with any token of each document."""
    out = np.zeros(len(doc_vectors), dtype=np.float32)
    for i, d in enumerate(doc_vectors):
        if len(d) and len(query_vectors):
            out[i] = float((query_vectors @ d.T).max(axis=1).mean())
    return out


class CrossEncoderReranker:
    """An ONNX cross-encoder loaded from ``--reranker PATH`` (a .onnx file or a folder with model.onnx)."""

    name = "cross-encoder"

    def __init__(self, path: Path, *, max_tokens: int = 512, batch_size: int = 16) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = path / "model.onnx" if path.is_dir() else path
        if not model.is_file():
            raise ConfigError(f"--reranker {path}: no ONNX model there (give a .onnx file or a folder with model.onnx)")
        tok_path = model.parent / "tokenizer.json"
        if not tok_path.is_file():
            raise ConfigError(f"--reranker {path}: no tokenizer.json beside {model.name}")
        try:
            tok = Tokenizer.from_file(str(tok_path))
        except Exception as exc:
            raise ConfigError(f"--reranker {path}: cannot read {tok_path.name} ({exc})") from None
        tok.no_truncation()
        tok.no_padding()
        self.tokenizer = tok
        cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ConfigError(f"--reranker {path}: tokenizer.json has no [CLS]/[SEP] tokens (BERT-style expected)")
        self.cls_id, self.sep_id = int(cls_id), int(sep_id)
        pad = tok.token_to_id("[PAD]")
        self.pad_id = int(pad) if pad is not None else 0
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = default_threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ConfigError(f"--reranker {path}: not a loadable ONNX model ({exc})") from None
        self._inputs = {i.name for i in self.session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ConfigError(f"--reranker {path}: the model has no input_ids input (not a cross-encoder?)")
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def _pairs(self, query: str, docs: Sequence[str]) -> tuple[list[tuple[list[int], int]], list[int]]:
        q_ids = self.tokenizer.encode(query, add_special_tokens=False).ids[: self.max_tokens // 2]
        room = max(16, self.max_tokens - len(q_ids) - 3)
        pairs: list[tuple[list[int], int]] = []  # (ids, length of the first segment incl. [CLS] and [SEP])
        owner: list[int] = []
        first = [self.cls_id, *q_ids, self.sep_id]
        for i, enc in enumerate(self.tokenizer.encode_batch(list(docs), add_special_tokens=False)):
            ids = enc.ids
            for start in range(0, max(len(ids), 1), room):
                pairs.append(([*first, *ids[start : start + room], self.sep_id], len(first)))
                owner.append(i)
        return pairs, owner

    def score(self, query: str, docs: Sequence[str], keys: Sequence[str] | None = None) -> np.ndarray:
        """Cross-encoder logit per document (best window for long ones)."""
        out = np.full(len(docs), -np.inf, dtype=np.float32)
        if not docs:
            return out
        pairs, owner = self._pairs(query, docs)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(pairs[i][0]) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(idx):
                seq, first_len = pairs[i]
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
                types[row, first_len : len(seq)] = 1
            feeds: dict[str, Any] = {"input_ids": ids}
            if "attention_mask" in self._inputs:
                feeds["attention_mask"] = mask
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = types
            with self._lock:
                logits = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
            if logits.ndim == 2 and logits.shape[1] == 2:
                values = logits[:, 1] - logits[:, 0]  # two-class head: evidence for "relevant"
            else:
                values = logits.reshape(len(idx), -1)[:, 0]
            for row, i in enumerate(idx):
                out[owner[i]] = max(out[owner[i]], float(values[row]))
        return out


_RERANKERS: dict[str, CrossEncoderReranker] = {}


def cross_encoder(path: Path) -> CrossEncoderReranker:
    """A cross-encoder, loaded once per process and path."""
    key = str(path.resolve())
    if key not in _RERANKERS:
        _RERANKERS[key] = CrossEncoderReranker(path)
    return _RERANKERS[key]
